// When a call to the API server is tried again, how long to wait first, and how long one try may
// take. Safe to repeat are calls that change nothing or change it the same way twice (reads, lists,
// deletes, creations under a name of our own), and exec upgrades the server refused before the
// command started. Retried: 429 (API Priority and Fairness sheds load with 429 and a Retry-After,
// https://kubernetes.io/docs/concepts/cluster-administration/flow-control/), 5xx (an API server
// restarting, an etcd leader change, a load balancer without a healthy backend), a connection reset
// or refused, and a try that ran over its time.

/** Tries of one call, the first included. */
export const ATTEMPTS = 6;
/** One API call (not an exec's command, which has its own deadline). */
export const CALL_TIMEOUT_MS = 60_000;
const MAX_WAIT_MS = 60_000;
const RETRIED_CODES = new Set([429, 500, 502, 503, 504]);
const CONNECTION_FAILED = /ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EAI_AGAIN|socket hang up|ran over/i;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A try that did not finish in time. */
export class CallTimeout extends Error {
  constructor(ms: number) {
    super(`ran over ${Math.round(ms / 1000)} s`);
    this.name = 'CallTimeout';
  }
}

/** True for an answer or a failure that another try may not get. */
export function isRetryable(code: number | undefined, error: unknown): boolean {
  if (code !== undefined) return RETRIED_CODES.has(code);
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  const text = [error, cause].map((e) => `${(e as { code?: string })?.code ?? ''} ${(e as Error)?.message ?? ''}`).join(' ');
  return error instanceof CallTimeout || CONNECTION_FAILED.test(text);
}

/** The wait before try `attempt + 1`: the server's Retry-After (seconds) when it gave one, else doubling from half a second. */
export function waitBefore(attempt: number, retryAfter?: string): number {
  const seconds = Number(retryAfter);
  if (retryAfter !== undefined && retryAfter.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return Math.min(MAX_WAIT_MS, seconds * 1000);
  return Math.min(MAX_WAIT_MS, 500 * 2 ** (attempt - 1));
}

/** `promise`, or a CallTimeout after `ms`; what arrives late goes to `late` (to be closed). */
export function withTimeout<T>(promise: Promise<T>, ms: number, late?: (value: T) => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  return Promise.race([
    promise.then((value) => {
      if (timedOut) late?.(value);
      return value;
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new CallTimeout(ms));
      }, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
