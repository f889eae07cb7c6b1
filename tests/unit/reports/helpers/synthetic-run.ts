// A large synthetic run for scale tests: two models, Solo and Coop on every pair, with steps,
// messages, model calls and judge labels, outcomes drawn from a seeded generator.
import type { FixtureTask } from './fixture-run.ts';

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ACTS = ['plan', 'question', 'answer', 'update', 'acknowledgement'];
const ERRORS = ['C1a', 'C1b', 'C2', 'C3a', 'C3b', 'C4a', 'C4b'];
const SYMPTOMS = ['Work overlap', 'Divergent architecture', 'Repetition', 'Unresponsiveness', 'Implementation failure'];

/** `tasks` tasks: models × pairs × {Solo, Coop}. */
export function syntheticTasks(tasks: number, seed = 7): FixtureTask[] {
  const rand = random(seed);
  const models = [
    { name: 'strong-model', skill: 0.75, coopCost: 0.3 },
    { name: 'weak-model', skill: 0.4, coopCost: 0.15 },
  ];
  const pairs = Math.floor(tasks / (2 * models.length));
  const out: FixtureTask[] = [];
  for (let p = 0; p < pairs; p++) {
    const hardness = rand();
    const repo = `synth${p % 5}_task`;
    const features = [1 + (p % 4), 5 + (p % 3)];
    for (const m of models) {
      const solo = rand() < m.skill * (1 - hardness) + 0.05;
      const coop = rand() < (m.skill - m.coopCost) * (1 - hardness) + 0.02;
      const messages = Array.from({ length: 2 + Math.floor(rand() * 4) }, (_, i) => ({
        from: i % 2 ? 'agent2' : 'agent1',
        to: i % 2 ? 'agent1' : 'agent2',
        body: `I will edit src/module${p}.py lines ${10 * i}-${10 * i + 8}; status update ${i}.`,
      }));
      out.push({
        models: [m.name],
        setting: 'solo',
        repo,
        taskId: p,
        features,
        passed: solo,
        merge: 'clean',
        steps: 12,
        calls: [{ agent: 'agent1', inputTokens: 20_000, outputTokens: 1_500, costUsd: 0.05 }],
      });
      out.push({
        models: [m.name, m.name],
        setting: 'coop',
        repo,
        taskId: p,
        features,
        passed: coop,
        merge: coop ? (rand() < 0.5 ? 'clean' : 'union') : (['union', 'llm', 'conflict'] as const)[Math.floor(rand() * 3)],
        steps: 10,
        stepOutput: 'x'.repeat(800),
        messages,
        labels: [
          ...messages.map((_, i) => ({ judge: 'speech_acts', label: ACTS[Math.floor(rand() * ACTS.length)], messageIndex: i })),
          ...(rand() < 0.3 ? [{ judge: 'communication', label: ERRORS[Math.floor(rand() * ERRORS.length)], evidence: [messages[0].body] }] : []),
          ...(coop ? [] : [{ judge: 'symptoms', label: SYMPTOMS[Math.floor(rand() * SYMPTOMS.length)], isPrimary: true, evidence: [messages[0].body] }]),
          ...(rand() < 0.5 ? [{ judge: 'detectors', label: 'first-turn plan' }] : []),
        ],
        calls: [
          { agent: 'agent1', inputTokens: 15_000, outputTokens: 1_000, costUsd: 0.04 },
          { agent: 'agent2', inputTokens: 15_000, outputTokens: 1_000, costUsd: 0.04 },
        ],
      });
    }
  }
  return out;
}
