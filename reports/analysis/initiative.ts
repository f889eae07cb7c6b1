// Initiative balance per team, as Collaborative Gym defines it (Shao et al. 2025, arXiv 2412.15701;
// judges/definitions.ts: initiative): each message takes initiative or not (the initiative judge's
// labels, or the deterministic fallback's), each seat's share of the team's initiative-taking
// messages, and the team's initiative entropy H = -sum_i p_i log_N p_i over the N seats (1: evenly
// shared, 0: one seat took it all, as Co-Gym sets it when any p_i is 0). A team is measured only
// when every message has a reading: an unsure fallback or an unread message leaves it unmeasured
// and says why, never a guess. Formulas and choices: docs/metrics.md.
import { groupBy } from './group-by.ts';

/** What the measure reads of a stored label (run-data.ts: LabelView has this shape). */
export interface InitiativeLabelView {
  judge: string;
  label: string;
  messageId: number | null;
  agent: string | null;
  model: string;
}

export interface InitiativeRecord {
  seats: { agent: string; model: string; kind: 'model' | 'human' }[];
  /** The message ids of the task's conversation. */
  messageIds: number[];
}

export interface SeatInitiative {
  agent: string;
  model: string;
  kind: 'model' | 'human';
  /** Its messages, and those taking initiative (when measured). */
  messages: number;
  initiative: number;
  /** Its share of the team's initiative-taking messages; null when unmeasured or nobody took initiative. */
  share: number | null;
}

export interface TaskInitiative {
  seats: SeatInitiative[];
  messages: number;
  /** Messages with no reading: undecided by the fallback, or not labelled by the judge. */
  unread: number;
  /** Who gave the readings: the judge model's spec, `deterministic` for the fallback, null when not judged. */
  labelledBy: string | null;
  /** Normalised initiative entropy (0 to 1); null when unmeasured. */
  entropy: number | null;
  /** Why the task is unmeasured; null when measured. */
  unmeasured: string | null;
}

const INITIATIVE_JUDGE = 'initiative';
const FALLBACK_MODEL = 'deterministic';

/** -sum p_i log_N p_i over N seats; 0 when a seat took none (Co-Gym's convention). */
export function initiativeEntropy(counts: readonly number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  if (counts.length < 2 || total === 0 || counts.some((c) => c === 0)) return 0;
  const h = -counts.reduce((sum, c) => sum + (c / total) * Math.log(c / total), 0) / Math.log(counts.length);
  return Math.min(1, Math.max(0, h));
}

export function taskInitiative(record: InitiativeRecord, labels: readonly InitiativeLabelView[]): TaskInitiative {
  const own = labels.filter((l) => l.judge === INITIATIVE_JUDGE && l.messageId !== null && record.messageIds.includes(l.messageId));
  const reading = new Map<number, InitiativeLabelView>();
  for (const l of own) if (l.label === 'initiative' || l.label === 'no_initiative') reading.set(l.messageId!, l);
  const models = [...new Set(own.map((l) => l.model))];
  const labelledBy = models.length === 0 ? null : models.join(', ');
  const messages = record.messageIds.length;
  const unread = messages - reading.size;
  const from = (agent: string) => [...reading.values()].filter((l) => l.agent === agent);
  const seats = record.seats.map((s) => ({ ...s, messages: 0, initiative: 0, share: null as number | null }));
  const unmeasured = (why: string): TaskInitiative => ({ seats, messages, unread, labelledBy, entropy: null, unmeasured: why });
  if (seats.length < 2) return unmeasured('one seat: no team to share initiative');
  if (messages === 0) return unmeasured('no messages');
  if (labelledBy === null) return unmeasured('not judged yet (coop-bench judge)');
  if (unread > 0) {
    return unmeasured(
      models.includes(FALLBACK_MODEL)
        ? `needs a judge model (--judge-model): the fallback is unsure of ${unread} of ${messages} messages`
        : `${unread} of ${messages} messages have no reading from the judge`,
    );
  }
  for (const s of seats) {
    s.messages = from(s.agent).length;
    s.initiative = from(s.agent).filter((l) => l.label === 'initiative').length;
  }
  const total = seats.reduce((n, s) => n + s.initiative, 0);
  for (const s of seats) s.share = total > 0 ? s.initiative / total : null;
  return { seats, messages, unread, labelledBy, entropy: initiativeEntropy(seats.map((s) => s.initiative)), unmeasured: null };
}

export interface InitiativeTaskRow {
  id: number;
  key: string;
  team: string;
  initiative: TaskInitiative;
}

/** Per team: its tasks, those measured, their mean entropy and the mean share of its human seats (null without one). */
export interface InitiativeTeamRow {
  team: string;
  tasks: number;
  measured: number;
  meanEntropy: number | null;
  meanHumanShare: number | null;
}

/** Per seat kind and model, over measured tasks where someone took initiative: the mean share of such a seat. */
export interface InitiativeSeatRow {
  kind: 'model' | 'human';
  model: string;
  seats: number;
  meanShare: number | null;
}

export interface InitiativeAnalysis {
  tasks: InitiativeTaskRow[];
  teams: InitiativeTeamRow[];
  seats: InitiativeSeatRow[];
}

const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

export function initiativeAnalysis(tasks: readonly { id: number; key: string; team: string; initiative?: TaskInitiative }[]): InitiativeAnalysis {
  const rows = tasks.filter((t) => t.initiative).map((t) => ({ id: t.id, key: t.key, team: t.team, initiative: t.initiative! }));
  const teams = [...groupBy(rows, (r) => r.team)]
    .map(([team, group]) => {
      const measured = group.filter((r) => r.initiative.entropy !== null);
      const humanShares = measured.flatMap((r) => r.initiative.seats.filter((s) => s.kind === 'human' && s.share !== null).map((s) => s.share!));
      return {
        team,
        tasks: group.length,
        measured: measured.length,
        meanEntropy: mean(measured.map((r) => r.initiative.entropy!)),
        meanHumanShare: mean(humanShares),
      };
    })
    .sort((a, b) => a.team.localeCompare(b.team));
  const seatShares = rows.filter((r) => r.initiative.entropy !== null).flatMap((r) => r.initiative.seats);
  const seats = [...groupBy(seatShares, (s) => `${s.kind}\u0000${s.model}`)]
    .map(([, group]) => ({
      kind: group[0]!.kind,
      model: group[0]!.model,
      seats: group.length,
      meanShare: mean(group.filter((s) => s.share !== null).map((s) => s.share!)),
    }))
    .sort((a, b) => a.kind.localeCompare(b.kind) || a.model.localeCompare(b.model));
  return { tasks: rows, teams, seats };
}
