// What each model spec of a run ran, as `coop-bench run` stored it in the run's options
// (`agentModels`): the model id beside the alias, its status on the run's date, and whether an
// agent CLI ran it degraded. Read as untrusted JSON: entries that do not fit are left out.
import { z } from 'zod';

const text = z.string().max(2000);
const runModelSchema = z.object({
  spec: text,
  provider: text.optional(),
  model: text.optional(),
  status: text.optional(),
  retiringSoon: z.boolean().optional(),
  replacement: text.optional(),
  degraded: text.optional(),
});

export type RunModel = z.infer<typeof runModelSchema>;

export function runModels(options: unknown): RunModel[] {
  const listed = (options as { agentModels?: unknown } | null)?.agentModels;
  if (!Array.isArray(listed)) return [];
  return listed.flatMap((entry) => {
    const parsed = runModelSchema.safeParse(entry);
    return parsed.success && parsed.data.model !== undefined ? [parsed.data] : [];
  });
}

/** `claude = anthropic claude-sonnet-5-5 (active)`. */
export function runModelText(m: RunModel): string {
  return `${m.spec} = ${m.provider ?? '?'} ${m.model} (${m.status ?? 'status unknown'}${m.degraded ? ', degraded' : ''})`;
}
