// Initiative balance on hand-built conversations whose answers are known by hand: each seat's share
// of the initiative-taking messages and the normalised entropy, as Collaborative Gym defines them.
import { describe, expect, it } from 'vitest';
import { initiativeAnalysis, initiativeEntropy, taskInitiative, type InitiativeRecord } from '../../../reports/analysis/initiative.ts';
import type { LabelView } from '../../../reports/run-data.ts';

const team: InitiativeRecord['seats'] = [
  { agent: 'agent1', model: 'human', kind: 'human' },
  { agent: 'agent2', model: 'claude', kind: 'model' },
];

/** One reading per message: [id, sender, label]. */
function readings(model: string, rows: [number, string, string][]): LabelView[] {
  return rows.map(([messageId, agent, label]) => ({
    judge: 'initiative',
    label,
    isPrimary: false,
    messageId,
    agent,
    description: '',
    evidence: [],
    model,
  }));
}

describe('initiative entropy', () => {
  it('is 1 for an even split, 0 when one seat took all, and in base N for N seats', () => {
    expect(initiativeEntropy([3, 3])).toBe(1);
    expect(initiativeEntropy([4, 0])).toBe(0);
    // p = (3/4, 1/4): -(0.75 log2 0.75 + 0.25 log2 0.25) = 0.8113
    expect(initiativeEntropy([3, 1])).toBeCloseTo(0.8113, 4);
    expect(initiativeEntropy([2, 2, 2])).toBeCloseTo(1, 10);
    // Co-Gym: 0 as soon as any share is 0, whatever the others do.
    expect(initiativeEntropy([1, 1, 0])).toBe(0);
  });
});

describe('initiative of one task', () => {
  it("gives each seat its share of the team's initiative-taking messages, people's seats marked", () => {
    const labels = readings('openai:judge', [
      [1, 'agent1', 'initiative'],
      [2, 'agent2', 'initiative'],
      [3, 'agent1', 'initiative'],
      [4, 'agent2', 'no_initiative'],
      [5, 'agent1', 'initiative'],
    ]);
    const result = taskInitiative({ seats: team, messageIds: [1, 2, 3, 4, 5] }, labels);
    expect(result.seats.map((s) => [s.agent, s.kind, s.messages, s.initiative, s.share])).toEqual([
      ['agent1', 'human', 3, 3, 0.75],
      ['agent2', 'model', 2, 1, 0.25],
    ]);
    expect(result.entropy).toBeCloseTo(0.8113, 4);
    expect(result).toMatchObject({ labelledBy: 'openai:judge', unread: 0, unmeasured: null });
  });

  it('gives 0 when one seat took all the initiative, even with the other writing', () => {
    const labels = readings('openai:judge', [
      [1, 'agent1', 'initiative'],
      [2, 'agent2', 'no_initiative'],
      [3, 'agent1', 'initiative'],
    ]);
    const result = taskInitiative({ seats: team, messageIds: [1, 2, 3] }, labels);
    expect(result.entropy).toBe(0);
    expect(result.seats.map((s) => s.share)).toEqual([1, 0]);
  });

  it('leaves the team unmeasured when the fallback is unsure of a message, and says a judge model is needed', () => {
    const labels = readings('deterministic', [
      [1, 'agent1', 'initiative'],
      [2, 'agent2', 'undecided:initiative'],
      [3, 'agent1', 'no_initiative'],
    ]);
    const result = taskInitiative({ seats: team, messageIds: [1, 2, 3] }, labels);
    expect(result.entropy).toBeNull();
    expect(result.seats.map((s) => s.share)).toEqual([null, null]);
    expect(result.unmeasured).toBe('needs a judge model (--judge-model): the fallback is unsure of 1 of 3 messages');
  });

  it('leaves the team unmeasured when the judge left a message without a reading, or nobody judged it', () => {
    const partial = taskInitiative({ seats: team, messageIds: [1, 2] }, readings('openai:judge', [[1, 'agent1', 'initiative']]));
    expect(partial.unmeasured).toBe('1 of 2 messages have no reading from the judge');
    expect(taskInitiative({ seats: team, messageIds: [1] }, []).unmeasured).toBe('not judged yet (coop-bench judge)');
    expect(taskInitiative({ seats: team, messageIds: [] }, []).unmeasured).toBe('no messages');
  });

  it('measures a team in which nobody took initiative as Co-Gym does: entropy 0, no shares', () => {
    const labels = readings('deterministic', [
      [1, 'agent1', 'no_initiative'],
      [2, 'agent2', 'no_initiative'],
    ]);
    const result = taskInitiative({ seats: team, messageIds: [1, 2] }, labels);
    expect(result.entropy).toBe(0);
    expect(result.seats.map((s) => s.share)).toEqual([null, null]);
  });
});

describe('initiative across a run', () => {
  it('averages entropy per team over measured tasks, and shares per seat kind and model', () => {
    const even = taskInitiative(
      { seats: team, messageIds: [1, 2] },
      readings('m', [
        [1, 'agent1', 'initiative'],
        [2, 'agent2', 'initiative'],
      ]),
    );
    const skewed = taskInitiative(
      { seats: team, messageIds: [1, 2, 3, 4] },
      readings('m', [
        [1, 'agent1', 'initiative'],
        [2, 'agent1', 'initiative'],
        [3, 'agent1', 'initiative'],
        [4, 'agent2', 'initiative'],
      ]),
    );
    const unsure = taskInitiative({ seats: team, messageIds: [1] }, readings('deterministic', [[1, 'agent1', 'undecided:initiative']]));
    const analysis = initiativeAnalysis([
      { id: 1, key: 'a', team: 'human+claude', initiative: even },
      { id: 2, key: 'b', team: 'human+claude', initiative: skewed },
      { id: 3, key: 'c', team: 'human+claude', initiative: unsure },
      { id: 4, key: 'd', team: 'claude' },
    ]);
    expect(analysis.tasks.map((t) => t.id)).toEqual([1, 2, 3]);
    expect(analysis.teams).toHaveLength(1);
    expect(analysis.teams[0]).toMatchObject({ team: 'human+claude', tasks: 3, measured: 2 });
    expect(analysis.teams[0]!.meanEntropy).toBeCloseTo((1 + 0.8113) / 2, 4);
    expect(analysis.teams[0]!.meanHumanShare).toBeCloseTo((0.5 + 0.75) / 2, 10);
    expect(analysis.seats).toEqual([
      { kind: 'human', model: 'human', seats: 2, meanShare: 0.625 },
      { kind: 'model', model: 'claude', seats: 2, meanShare: 0.375 },
    ]);
  });
});
