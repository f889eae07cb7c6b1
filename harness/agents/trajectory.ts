// What an agent did, step by step, kept for agent<N>_traj.json and the store.
import { boundText } from '../errors.ts';

export interface TrajectoryStep {
  index: number;
  /** ISO time the step ended. */
  at: string;
  kind: 'tool' | 'model' | 'message' | 'note';
  /** Tool name for tool steps. */
  name?: string;
  input?: unknown;
  output?: string;
  exitCode?: number;
}

const MAX_STEP_OUTPUT = 16 * 1024;

export class Trajectory {
  readonly steps: TrajectoryStep[] = [];

  record(step: Omit<TrajectoryStep, 'index' | 'at'>): TrajectoryStep {
    const full: TrajectoryStep = {
      ...step,
      output: step.output === undefined ? undefined : boundText(step.output, MAX_STEP_OUTPUT),
      index: this.steps.length,
      at: new Date().toISOString(),
    };
    this.steps.push(full);
    return full;
  }
}
