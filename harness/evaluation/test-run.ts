// What one run of a feature's hidden tests gives, and the settings that decide it (the cache's key).
import type { ContainerLimits, SandboxImage } from '../sandbox/types.ts';
import type { TestCounts } from './parse-results.ts';

export interface TestRun {
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  counts?: TestCounts;
  /** Why it failed, in one line, when known. */
  cause?: string;
  /** Runner output, head and tail kept. */
  output: string;
  durationMs: number;
  /** Taken from the test cache: the same image, tests and code were run before (durationMs is that run's). */
  cached?: boolean;
}

/** What decides a run's result besides the tests and the code: the image and the runner's limits. */
export interface TestSettings {
  image: SandboxImage;
  limits: ContainerLimits;
  timeoutMs: number;
  maxOutputBytes?: number;
}
