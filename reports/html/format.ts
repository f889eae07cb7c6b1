// Numbers as the report prints them.
import type { Difference, Proportion } from '../stats.ts';

export const pct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)}%`;

/** `48.3% [44.5, 52.1]` */
export function rateText(p: Proportion | null): string {
  return p ? `${pct(p.p)} [${(100 * p.low).toFixed(1)}, ${(100 * p.high).toFixed(1)}]` : '–';
}

export function countText(p: Proportion | null): string {
  return p ? `${p.k}/${p.n}` : '–';
}

/** `+12.0 pts [3.1, 20.2]` */
export function differenceText(d: Difference | null): string {
  if (!d) return '–';
  const pts = (x: number) => (100 * x).toFixed(1);
  return `${d.diff >= 0 ? '+' : ''}${pts(d.diff)} pts [${pts(d.low)}, ${pts(d.high)}]`;
}

export const fixed = (x: number | null, digits = 3) => (x === null ? '–' : x.toFixed(digits));

export const integer = (x: number) => x.toLocaleString('en-US');

export const usd = (x: number) => `$${x.toFixed(x > 0 && x < 1 ? 4 : 2)}`;
