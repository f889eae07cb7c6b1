// The fakes answer coop-bench's live preflight (harness/run/preflight.ts) as a model would: a
// request with the preflight's tool gets a call of it; once its result is in the conversation, the
// word it returned. So a run against a fake passes the preflight without a test scripting it, and
// the test's own script sees only the agents' requests. The contract checks still apply first.
import { PREFLIGHT } from '../../harness/run/preflight.ts';

export type PreflightStep = { call: { name: string; input: { key: string } } } | { text: string };

/** The preflight's next answer for this request body, or undefined when it is no preflight request. */
export function preflightStep(body: any): PreflightStep | undefined {
  if (!JSON.stringify(body?.tools ?? []).includes(`"${PREFLIGHT.tool}"`)) return undefined;
  const conversation = JSON.stringify(body?.messages ?? body?.input ?? '');
  return conversation.includes(PREFLIGHT.result) ? { text: PREFLIGHT.word } : { call: { name: PREFLIGHT.tool, input: { key: 'a' } } };
}

/** Whether a request is one of the preflight's (a stream fake records them with the others). */
export function isPreflight(request: { body?: unknown }): boolean {
  return preflightStep(request.body) !== undefined;
}
