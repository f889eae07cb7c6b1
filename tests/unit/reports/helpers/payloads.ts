// Script-injection payloads planted in agent-written text: a report must show them as text.
export const PAYLOADS = [
  '<script>window.__pwned = 1</script>',
  '<img src=x onerror="window.__pwned = 2">',
  '</script><script>window.__pwned = 3</script>',
  '"><svg onload="window.__pwned = 4"></svg>',
  '\'><iframe srcdoc="<script>parent.__pwned = 5</script>"></iframe>',
  '<!-- <a href="javascript:window.__pwned = 6">click</a>',
  '=HYPERLINK("http://attacker.invalid")\u2028',
];

export const PAYLOAD = PAYLOADS.join('\n');

import type { FixtureTask } from './fixture-run.ts';

/** A Coop task whose every agent-written text carries the payloads, and its Solo counterpart. */
export function injectionTasks(): FixtureTask[] {
  const team = ['gpt-5', 'gpt-5'];
  return [
    {
      models: team,
      setting: 'coop',
      passed: false,
      stepOutput: PAYLOAD,
      patch: `diff --git a/x b/x\n+${PAYLOAD.replace(/\n/g, '\n+')}\n`,
      testOutput: PAYLOAD,
      messages: [
        { from: 'agent1', to: 'agent2', body: `I will edit src/x.js lines 1-9 ${PAYLOAD}` },
        { from: 'agent2', to: 'agent1', body: `OK ${PAYLOAD}` },
      ],
      labels: [
        { judge: 'speech_acts', label: 'plan', messageIndex: 0 },
        { judge: 'communication', label: 'C4a', description: PAYLOAD, evidence: [PAYLOAD, 'OK'] },
        { judge: 'symptoms', label: PAYLOAD, isPrimary: true, evidence: [PAYLOAD] },
        { judge: 'detectors', label: PAYLOAD },
      ],
      calls: [{ agent: 'agent1', inputTokens: 1200, outputTokens: 300, costUsd: 0.012 }],
    },
    { models: ['gpt-5'], setting: 'solo', passed: true },
    { models: [PAYLOADS[0]], setting: 'solo', status: 'error', error: PAYLOAD },
  ];
}
