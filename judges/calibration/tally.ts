// True and false positives and false negatives per label, as the calibration set counts them for
// every judge (score.ts) and as each LLM judge scores its own gold (llm/judge.ts: `calibration`).

export interface LabelScore {
  judge: string;
  label: string;
  tp: number;
  fp: number;
  fn: number;
}

export class Tally {
  private readonly scores = new Map<string, LabelScore>();
  constructor(private readonly judge: string) {}

  private row(label: string): LabelScore {
    let row = this.scores.get(label);
    if (!row) this.scores.set(label, (row = { judge: this.judge, label, tp: 0, fp: 0, fn: 0 }));
    return row;
  }

  /** Items (message numbers, or one conversation) predicted and expected for one label. */
  compare(label: string, predicted: Iterable<number | string>, expected: Iterable<number | string>): void {
    const p = new Set(predicted);
    const e = new Set(expected);
    const row = this.row(label);
    for (const x of p)
      if (e.has(x)) row.tp++;
      else row.fp++;
    for (const x of e) if (!p.has(x)) row.fn++;
  }

  /** One predicted and one expected category (or none) per item. */
  classify(item: string, predicted: string | null | undefined, expected: string | null | undefined): void {
    if (predicted) this.compare(predicted, [item], predicted === expected ? [item] : []);
    if (expected && predicted !== expected) this.compare(expected, [], [item]);
  }

  rows(order: readonly string[] = []): LabelScore[] {
    const rank = (label: string) => (order.includes(label) ? order.indexOf(label) : order.length);
    return [...this.scores.values()].sort((a, b) => rank(a.label) - rank(b.label) || a.label.localeCompare(b.label));
  }
}
