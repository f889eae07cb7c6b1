// The lines a person types into the terminal, for the trajectory: keystrokes gathered up to Enter,
// with escape sequences (arrow keys, ...) dropped and backspace applied. What the shell made of them
// (history, completion) is in the terminal, not here: this is what was typed, with its time.
const ESCAPE = /\x1b(?:\[[0-9;?]*[ -/]*[@-~]|O.|.)/g;
const MAX_LINE = 4_000;

export class TypedLines {
  private line = '';

  /** Takes keystrokes; returns the lines they ended. */
  take(data: string): string[] {
    const ended: string[] = [];
    for (const ch of data.replace(ESCAPE, '')) {
      if (ch === '\r' || ch === '\n') {
        ended.push(this.line);
        this.line = '';
      } else if (ch === '\x7f' || ch === '\b') {
        this.line = this.line.slice(0, -1);
      } else if (ch === '\x03') {
        ended.push(`${this.line}^C`);
        this.line = '';
      } else if (ch >= ' ' || ch === '\t') {
        if (this.line.length < MAX_LINE) this.line += ch;
      }
    }
    return ended;
  }
}
