// Where a model stands on the run's date, from the catalogue's lifecycle dates. A retired model's
// calls fail ("Requests to models past the retirement date will fail": Anthropic's model
// deprecations page; "the model or endpoint will no longer be accessible": OpenAI's), so a run
// refuses it before anything is built; one that retires within RETIRING_SOON_DAYS is flagged.
import type { CatalogueEntry } from './catalogue.ts';

export const RETIRING_SOON_DAYS = 30;

export type LifecycleState = 'active' | 'deprecated' | 'retiring' | 'retired' | 'unlisted';

export interface Lifecycle {
  state: LifecycleState;
  /** The first day the model is no longer served. */
  retires?: string;
  /** Whole days from the run's date to `retires` (0 or less: retired). */
  daysLeft?: number;
  replacement?: string;
  /** False when only third-party pages report the dates. */
  verified: boolean;
}

export function lifecycleOf(entry: CatalogueEntry | undefined, today: Date): Lifecycle {
  if (!entry) return { state: 'unlisted', verified: false };
  const verified = entry.sources.lifecycle?.verified ?? true;
  const base = { replacement: entry.replacement, verified };
  if (!entry.retires) return { ...base, state: entry.deprecated && dayStart(entry.deprecated) <= today.getTime() ? 'deprecated' : 'active' };
  const daysLeft = Math.ceil((dayStart(entry.retires) - today.getTime()) / 86_400_000);
  const state = daysLeft <= 0 ? 'retired' : daysLeft <= RETIRING_SOON_DAYS ? 'retiring' : 'deprecated';
  return { ...base, state, retires: entry.retires, daysLeft };
}

/** `active`, `deprecated (retires 2027-01-14, in 46 days)`, `retiring in 12 days (2026-12-11)`, `retired on 2026-06-15`. */
export function lifecycleText(lifecycle: Lifecycle): string {
  const { state, retires, daysLeft } = lifecycle;
  const unverified = lifecycle.verified ? '' : ', unverified';
  if (state === 'retired') return `retired on ${retires}${unverified}`;
  if (state === 'retiring') return `retiring in ${daysLeft} day${daysLeft === 1 ? '' : 's'} (${retires}${unverified})`;
  if (state === 'deprecated' && retires) return `deprecated (retires ${retires}, in ${daysLeft} days${unverified})`;
  return state === 'unlisted' ? 'not in the catalogue' : state;
}

/** The one line that stops a run using a retired model; undefined for any other. */
export function retirementRefusal(spec: string, model: string, lifecycle: Lifecycle): string | undefined {
  if (lifecycle.state !== 'retired') return undefined;
  const source = lifecycle.verified ? '' : ' (a date only third-party pages report)';
  const instead = lifecycle.replacement ? `use ${lifecycle.replacement} instead` : 'use a current model instead';
  return `model ${model} (${spec}) was retired on ${lifecycle.retires}${source}: its provider no longer serves it; ${instead} (coop-bench models lists each model's status)`;
}

function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}
