// A person's active time: the gaps between their actions (keystrokes, messages, the page's
// activity pings while they read or scroll), each counted when it is under IDLE_MS; a longer gap
// means they were away and counts nothing.
export const IDLE_MS = 60_000;

export class ActiveTime {
  private totalMs = 0;
  private last?: number;

  touch(now = Date.now()): void {
    if (this.last !== undefined) {
      const gap = now - this.last;
      if (gap > 0 && gap <= IDLE_MS) this.totalMs += gap;
    }
    this.last = now;
  }

  get ms(): number {
    return this.totalMs;
  }
}
