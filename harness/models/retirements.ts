// Models their providers retire, and when. After that day a call answers 404 and a run stops on the
// first (harness/run/error-kind.ts), so a run is warned at its start instead of failing mid-way.
// Source: Anthropic's model deprecations page, as @anthropic-ai/sdk 1.12 carries it
// (DEPRECATED_MODELS in resources/messages/messages.js, which warns on every call).
import { undatedModelId } from './specs.ts';

/** Model id (and its dated ids) -> the day it stops being served (UTC). */
const RETIREMENTS: Readonly<Record<string, string>> = {
  'claude-sonnet-4-5': '2026-11-30',
};

/** A one-line warning when `model` is retired or retires within 60 days of `today`; undefined otherwise. */
export function retirementWarning(model: string, today: Date = new Date()): string | undefined {
  const day = RETIREMENTS[model] ?? RETIREMENTS[undatedModelId(model)];
  if (!day) return undefined;
  const daysLeft = Math.ceil((Date.parse(`${day}T00:00:00Z`) - today.getTime()) / 86_400_000);
  if (daysLeft > 60) return undefined;
  const when = daysLeft > 0 ? `retires on ${day} (in ${daysLeft} day${daysLeft === 1 ? '' : 's'})` : `was retired on ${day}`;
  return `warning: model ${model} ${when}: after that its calls answer 404 and a run using it stops; name a current model (e.g. anthropic:<model>), knowing results then differ from the paper's`;
}
