// Initiative balance (analysis/initiative.ts; docs/metrics.md): per task each seat's share of the
// initiative-taking messages, people's seats marked, and the team's entropy; then per team and per
// seat kind. Every name and reason comes from the run and is escaped by the table builder.
import type { RunSummary } from '../../summary.ts';
import type { SeatInitiative } from '../../analysis/initiative.ts';
import { fixed, pct } from '../format.ts';
import { note, num, section, table, taskLink } from '../markup.ts';

const seatName = (s: SeatInitiative) => `${s.agent} (${s.kind === 'human' ? 'person' : s.model})`;
const shareCell = (x: number | null) => (x === null ? '–' : pct(x, 0));

export function initiativeSection(s: RunSummary): string {
  const { tasks, teams, seats } = s.initiative;
  const intro = note(
    'Collaborative Gym\u2019s initiative balance: a message takes initiative when it directs the work or sets up shared understanding. Each seat\u2019s share of the team\u2019s initiative-taking messages, and the team\u2019s normalised entropy (1: evenly shared, 0: one seat took it all). Messages are read by the initiative judge with --judge-model; without one, a deterministic fallback reads only the messages it is sure of, and a team with an unsure message is left unmeasured. Definitions: docs/metrics.md.',
  );
  if (tasks.length === 0) return section('initiative', 'Initiative balance', [intro, note('No finished Coop tasks to measure.')]);
  return section('initiative', 'Initiative balance', [
    intro,
    table(
      ['team', num('tasks'), num('measured'), num('mean entropy'), num('mean share of people')],
      teams.map((t) => [t.team, t.tasks, t.measured, fixed(t.meanEntropy), shareCell(t.meanHumanShare)]),
      { className: 'initiative-teams' },
    ),
    table(
      ['seat', 'model', num('seats measured'), num('mean share')],
      seats.map((r) => [r.kind === 'human' ? 'person' : 'model', r.kind === 'human' ? '–' : r.model, r.seats, shareCell(r.meanShare)]),
      { className: 'initiative-seats' },
    ),
    table(
      ['task', 'team', 'seats: initiative share', num('entropy'), 'read by', 'unmeasured because'],
      tasks.map((t) => [
        taskLink(t.id, `#${t.id}`),
        t.team,
        t.initiative.seats
          .map((seat) => `${seatName(seat)}: ${t.initiative.entropy === null ? '–' : `${shareCell(seat.share)} (${seat.initiative}/${seat.messages})`}`)
          .join('; '),
        fixed(t.initiative.entropy),
        t.initiative.labelledBy ?? '–',
        t.initiative.unmeasured ?? '',
      ]),
      { className: 'initiative' },
    ),
  ]);
}
