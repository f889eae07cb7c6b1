// What the model proxies may hold in memory at once, across every agent of the run: request bodies
// while they arrive and are forwarded, and the part of each answer read for its token counts. A
// request that would go over is refused at once (the CLI retries it), so many large requests at
// the same time cannot take the harness's memory.

/** The largest request body one call may send (a long conversation is a few MB). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** What one answer may hold for its token counts (a whole JSON answer, or one server-sent event). */
export const MAX_ANSWER_BUFFER_BYTES = 2 * 1024 * 1024;
/** The most one answer may relay: more is no model's answer. */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;
/** Everything held at once by all the proxies of this process. */
export const DEFAULT_BUDGET_BYTES = 256 * 1024 * 1024;

export class MemoryBudget {
  private used = 0;

  constructor(readonly limit = DEFAULT_BUDGET_BYTES) {}

  /** Reserves `bytes` if they fit; false (nothing reserved) if not. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get inUse(): number {
    return this.used;
  }
}

/** Shared by every proxy of the process unless a test passes its own. */
export const processBudget = new MemoryBudget();
