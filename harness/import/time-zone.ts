// Times in CooperBench's logs come in three forms: Python's `datetime.now().isoformat()` (the
// machine's local time, no zone: result.json's started_at/ended_at, eval.json's evaluated_at),
// `time.time()` floats (seconds since 1970: mini-swe-agent's extra.timestamp, OpenHands' sent
// messages) and ISO text with a zone (Claude Code's session log). The local ones need the zone of
// the machine that ran the harness: given with --timezone, or inferred from the epoch times of the
// same run (the offset that puts every model call inside its task's started_at..ended_at).
import { UserError } from '../errors.ts';

export interface Zone {
  /** How the zone was chosen, for the import's report. */
  label: string;
  /** Epoch milliseconds of a local wall-clock time (given as if it were UTC). */
  toUtc(wallMs: number): number;
}

const NAIVE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?$/;
const ZONED = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;
const OFFSET = /^(?:UTC)?([+-])(\d{2}):?(\d{2})$/;
const MINUTE = 60_000;

function fixedZone(offsetMinutes: number, how: string): Zone {
  return { label: `UTC${formatOffset(offsetMinutes)} (${how})`, toUtc: (wall) => wall - offsetMinutes * MINUTE };
}

export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Minutes east of UTC in an IANA zone at an instant. */
function ianaOffset(zone: string, utcMs: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((wall - Math.floor(utcMs / 1000) * 1000) / MINUTE);
}

/** `--timezone`: UTC, an offset (+02:00, -0530) or an IANA name (Europe/Berlin, daylight saving included). */
export function parseZone(text: string): Zone {
  if (text === 'UTC' || text === 'Z') return fixedZone(0, 'given with --timezone');
  const m = OFFSET.exec(text);
  if (m) {
    const minutes = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
    if (Math.abs(minutes) > 14 * 60) throw new UserError(`--timezone ${text}: offsets run from -14:00 to +14:00`);
    return fixedZone(minutes, 'given with --timezone');
  }
  try {
    ianaOffset(text, Date.now());
  } catch {
    throw new UserError(`--timezone "${text.slice(0, 100)}" is not a time zone: give UTC, an offset like +02:00, or a name like Europe/Berlin`);
  }
  return {
    label: `${text} (given with --timezone)`,
    // The offset at the wall time taken as UTC, then corrected once for a change of offset in between.
    toUtc: (wall) => {
      const first = wall - ianaOffset(text, wall) * MINUTE;
      return wall - ianaOffset(text, first) * MINUTE;
    },
  };
}

/** Epoch milliseconds of a `time.time()` float (or milliseconds), or of ISO text with a zone. */
export function epochMs(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value > 1e12 ? value : value * 1000;
  if (typeof value !== 'string') return undefined;
  const m = ZONED.exec(value.trim());
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[3] ? m[3].slice(0, 4) : ''}${m[4]}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A zone-less ISO time as if it were UTC (its wall-clock reading), in milliseconds. */
export function wallMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = NAIVE.exec(value.trim());
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[3] ? m[3].slice(0, 4) : ''}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A time written by the harness's machine: zone-less text in `zone`, or an epoch / zoned time. */
export function localTime(value: unknown, zone: Zone): string | undefined {
  const wall = wallMs(value);
  const ms = wall === undefined ? epochMs(value) : zone.toUtc(wall);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

export const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

/** One task's evidence: its local start and end, and the epoch times of what happened in it. */
export interface ZoneEvidence {
  startWall: number;
  endWall: number;
  epochs: number[];
}

/** A minute's slack: a model call's time and ended_at are taken a moment apart. */
const SLACK = MINUTE;

/**
 * The offset (a multiple of 15 minutes, as every zone's is) that puts the most epoch times inside
 * their task's local start..end; among equals, the one that puts each task's first event closest
 * after its start. Undefined without evidence.
 */
export function inferZone(evidence: ZoneEvidence[]): Zone | undefined {
  const usable = evidence.filter((e) => e.epochs.length > 0 && e.endWall >= e.startWall);
  if (usable.length === 0) return undefined;
  let best: { offset: number; outside: number; gap: number } | undefined;
  for (let offset = -12 * 60; offset <= 14 * 60; offset += 15) {
    let outside = 0;
    let gap = 0;
    for (const e of usable) {
      const start = e.startWall - offset * MINUTE;
      const end = e.endWall - offset * MINUTE;
      for (const t of e.epochs) outside += Math.max(0, start - SLACK - t) + Math.max(0, t - end - SLACK);
      gap += Math.abs(Math.min(...e.epochs) - start);
    }
    if (!best || outside < best.outside || (outside === best.outside && gap < best.gap)) best = { offset, outside, gap };
  }
  const epochs = usable.reduce((n, e) => n + e.epochs.length, 0);
  const zone = fixedZone(best!.offset, `inferred from ${epochs} epoch timestamps in ${usable.length} task folder${usable.length === 1 ? '' : 's'}`);
  return best!.outside === 0 ? zone : { ...zone, label: `${zone.label}; some times still fall outside their task: give --timezone if this is wrong` };
}

export const UTC_FALLBACK: Zone = fixedZone(0, 'no epoch timestamps to infer the zone from: read as UTC; give --timezone if the harness ran elsewhere');
