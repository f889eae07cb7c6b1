// The end-to-end benchmark's fake model in a process of its own, so that the CPU breakdown
// (cpu-breakdown.ts) counts it apart from the benchmark's process. Argument: the pool's folder.
// Prints the server's URL on a line; closes when its stdin ends.
import { loadPool } from '../tasks/pools.ts';
import { startFakeOpenAI } from '../tests/fakes/openai-server.ts';
import { scriptedAgents } from '../tests/helpers/scripted-agents.ts';
import { FAKE_MODELS, MODEL_LATENCY_MS, STEPS } from './end-to-end.ts';

const server = await startFakeOpenAI({
  limits: FAKE_MODELS,
  handler: scriptedAgents(loadPool(process.argv[2]!), 'openai', undefined, { steps: STEPS, delayMs: MODEL_LATENCY_MS }),
});
process.stdout.write(`${server.url}\n`);
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
process.stdin.resume();
