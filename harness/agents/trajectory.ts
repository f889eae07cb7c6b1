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
/** Tool arguments come from the model: a huge one is kept as bounded text, not as an object. */
const MAX_STEP_INPUT = 64 * 1024;

function boundInput(input: unknown): unknown {
  if (input === undefined) return undefined;
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  return text.length <= MAX_STEP_INPUT ? input : boundText(text, MAX_STEP_INPUT);
}

export class Trajectory {
  readonly steps: TrajectoryStep[] = [];

  record(step: Omit<TrajectoryStep, 'index' | 'at'>): TrajectoryStep {
    const full: TrajectoryStep = {
      ...step,
      input: boundInput(step.input),
      output: step.output === undefined ? undefined : boundText(step.output, MAX_STEP_OUTPUT),
      index: this.steps.length,
      at: new Date().toISOString(),
    };
    this.steps.push(full);
    return full;
  }
}
