// What an agent did, step by step, kept for agent<N>_traj.json and the store. Each step is handed to
// a listener as it is recorded (the store writes it at once), so a crash loses no step.
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
/** Notes hold the exact prompts and summaries: a larger bound. */
const MAX_NOTE_OUTPUT = 64 * 1024;
/** Tool arguments come from the model: a huge one is kept as bounded text, not as an object. */
const MAX_STEP_INPUT = 64 * 1024;

function boundInput(input: unknown): unknown {
  if (input === undefined) return undefined;
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  return text.length <= MAX_STEP_INPUT ? input : boundText(text, MAX_STEP_INPUT);
}

export class Trajectory {
  readonly steps: TrajectoryStep[] = [];

  constructor(private readonly onStep?: (step: TrajectoryStep) => void) {}

  record(step: Omit<TrajectoryStep, 'index' | 'at'>): TrajectoryStep {
    const full: TrajectoryStep = {
      ...step,
      input: boundInput(step.input),
      output: step.output === undefined ? undefined : boundText(step.output, step.kind === 'note' ? MAX_NOTE_OUTPUT : MAX_STEP_OUTPUT),
      index: this.steps.length,
      at: new Date().toISOString(),
    };
    this.steps.push(full);
    this.onStep?.(full);
    return full;
  }
}
