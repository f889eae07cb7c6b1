// Communication: overhead and speech acts (figure 5c), detectors against outcomes (section 5),
// communication errors (figure 6) and failure symptoms (table 1).
import type { RunSummary } from '../../summary.ts';
import { UNLABELED, type DetectorCalibration, type DetectorRow, type JudgeTrust, type LlmJudgeRow } from '../../analysis/communication.ts';
import { COMMUNICATION_ERRORS, IMPLEMENTATION_FAILURE, JUDGES, SPEECH_ACTS, normalizeLabel } from '../../analysis/taxonomy.ts';
import type { Proportion } from '../../stats.ts';
import { fixed, integer, pct } from '../format.ts';
import { figure, note, num, section, table } from '../markup.ts';
import { PALETTE, legend, stackedBars, type Series } from '../svg.ts';

const rateCell = (p: Proportion | null) => (p ? `${pct(p.p)} (${p.k}/${p.n})` : '–');

export function communicationSection(s: RunSummary): string {
  const { teams, labelCounts, detectors } = s.communication;
  if (teams.length === 0) return section('communication', 'Communication overhead and speech acts', [note('No finished Coop tasks with messaging.')]);
  const acts = [
    ...SPEECH_ACTS,
    ...new Set(teams.flatMap((t) => Object.keys(t.speechActs)).filter((a) => a !== UNLABELED && !SPEECH_ACTS.includes(a))),
    UNLABELED,
  ];
  const series: Series[] = acts.map((a, i) => ({ name: a, color: a === UNLABELED ? '#c9ced6' : PALETTE[i % (PALETTE.length - 1)] }));
  const bars = teams.map((t) => ({ label: t.team, segments: acts.map((a) => (t.steps > 0 ? (t.speechActs[a] ?? 0) / t.steps : 0)) }));
  const max = Math.max(0.05, ...teams.map((t) => t.overhead ?? 0));
  const parts = [
    note('Messages as a share of all agent steps in Coop tasks with messaging (paper figure 5c), split by the speech-act judge\u2019s label of each message.'),
    labelCounts[JUDGES.speechActs] ? '' : note('No speech-act labels yet: every message counts as unlabeled.'),
    legend(series),
    figure(
      stackedBars('overhead', 'Messages as a share of all steps, by speech act', bars, series, Math.ceil(max * 20) / 20),
      'Communication overhead by speech act.',
    ),
    table(
      ['model', num('tasks'), num('with messages'), num('messages'), num('steps'), num('messages / steps'), num('messages per task'), ...acts.map(num)],
      teams.map((t) => [
        t.team,
        t.tasks,
        t.conversations,
        integer(t.messages),
        integer(t.steps),
        t.overhead === null ? '–' : pct(t.overhead),
        fixed(t.messagesPerTask, 1),
        ...acts.map((a) => t.speechActs[a] ?? 0),
      ]),
    ),
    labelCounts[JUDGES.speechActs] ? trustTable('speech-act', s.communication.trust.speechActs, SPEECH_ACTS) : '',
    '<h3>LLM judges</h3>',
    llmJudgeTable(s.communication.llmJudges),
    '<h3>Detectors</h3>',
    detectors.length
      ? detectorTable(detectors)
      : note(
          'No detector labels (deterministic detectors: questions with no reply, near-duplicate messages, first-turn plan, broken checkable commitments, line and file mentions) in this run.',
        ),
  ];
  return section('communication', 'Communication overhead and speech acts', parts);
}

const ratio = (x: number | null) => (x === null ? '–' : fixed(x, 2));

/** Precision and recall on the held-out calibration split: how far the counts beside them can be trusted. */
function trustCells(c: DetectorCalibration | null): string[] {
  if (!c) return ['–', '–'];
  return [`${ratio(c.precision)} (${c.tp}/${c.tp + c.fp})`, `${ratio(c.recall)} (${c.tp}/${c.tp + c.fn})`];
}

/** How a judge model's figures are stored for a run's reports. */
const MEASURE_MODEL =
  'coop-bench judge --calibrate --judge-model <spec> --record --write-scores, with --readings-dir <runs-dir>/readings for a model whose readings the package does not hold';

/** Rows whose promises a judge model read: their figures are that model's, measured on the same split, or none. */
function modelNote(rows: DetectorRow[]): string {
  if (rows.length === 0) return '';
  const models = [...new Set(rows.flatMap((r) => (r.calibration?.model ? [r.calibration.model] : [])))];
  return note(
    models.length
      ? `A row whose promises were read by the judge model shows that model\u2019s figures (${models.join(', ')}) on the same held-out split, stored by ${MEASURE_MODEL}.`
      : `A row whose promises were read by the judge model shows figures only once that model was measured on the same split (${MEASURE_MODEL}): they depend on the model.`,
  );
}

/** Where a judge model's figures come from, or how to get them: they depend on the model. */
function trustNote(judge: string, trust: JudgeTrust | null): string {
  return note(
    trust
      ? `Precision and recall (test): the ${judge} judge\u2019s model (${trust.model}) on the ${trust.cases} held-out calibration conversations (test split), so a reader knows how far each count can be trusted.`
      : `No calibration figures of the ${judge} judge\u2019s model are stored: they depend on the model, and are shown once the one model that gave this run\u2019s labels was measured on the held-out split (${MEASURE_MODEL}).`,
  );
}

/** A judge model's precision and recall per label, beside a table whose columns are the labels. */
function trustTable(judge: string, trust: JudgeTrust | null, labels: readonly string[]): string {
  const rows = labels.filter((l) => trust?.labels[l]);
  return (
    trustNote(judge, trust) +
    (rows.length
      ? table(
          ['label', num('precision (test)'), num('recall (test)')],
          rows.map((l) => [l, ...trustCells(trust!.labels[l]!)]),
        )
      : '')
  );
}

/** Every LLM judge: what it gave in this run and its model's held-out figures, per label. */
function llmJudgeTable(rows: readonly LlmJudgeRow[]): string {
  return (
    note(
      'What each LLM judge labels, how many labels it gave and on how many tasks, and per label its model\u2019s precision and recall on the held-out calibration split (when stored).',
    ) +
    table(
      ['judge', 'labels', num('labels given'), num('tasks'), 'label', num('count'), num('precision (test)'), num('recall (test)')],
      rows.flatMap((r) => {
        const head = [r.judge, r.title, r.labels, r.tasks];
        if (r.byLabel.length === 0) return [[...head, '–', '', '–', '–']];
        return r.byLabel.map(([label, count], i) => [...(i === 0 ? head : ['', '', '', '']), label, count, ...trustCells(r.trust?.labels[label] ?? null)]);
      }),
    )
  );
}

function detectorTable(rows: DetectorRow[]): string {
  const split = rows.find((r) => r.calibration)?.calibration;
  return (
    note(
      'Coop tasks with messaging, with and without each detector label: success and naive merge conflict rate (as in the paper\u2019s section 5, e.g. first-turn planning and conflicts). Without a judge model the detectors label only what they are sure of; \u201cundecided\u201d counts the tasks where a detector found the label but was not sure, which are in neither group. A judge model (--judge-model) reads the promises the detectors leave undecided.',
    ) +
    note(
      split
        ? `Precision and recall: the detector on the ${split.cases} held-out calibration conversations (test split, written from the paper\u2019s definitions without the detectors), so a reader knows how far each count can be trusted. A label that covers part of a paper label says which part.`
        : 'No calibration figures of the current detectors are stored (run coop-bench judge --calibrate --write-scores).',
    ) +
    modelNote(rows.filter((r) => r.judge === JUDGES.commitments)) +
    table(
      [
        'label',
        'meaning',
        num('tasks'),
        num('undecided'),
        num('success with'),
        num('success without'),
        num('conflicts with'),
        num('conflicts without'),
        num('precision (test)'),
        num('recall (test)'),
      ],
      rows.map((r) => [
        r.label,
        r.definition ?? '',
        r.tasks,
        r.judge === JUDGES.detectors ? r.undecided : '',
        rateCell(r.successWith),
        rateCell(r.successWithout),
        rateCell(r.conflictWith),
        rateCell(r.conflictWithout),
        ...trustCells(r.calibration),
      ]),
    )
  );
}

export function errorsSection(s: RunSummary): string {
  const { errors, symptoms, labelCounts, trust } = s.communication;
  const parts: string[] = ['<h3>Communication errors</h3>'];
  if (!labelCounts[JUDGES.communication]) {
    parts.push(note('No communication-error labels: the communication judge has not labelled this run.'));
  } else if (errors.length === 0) {
    parts.push(note('No Coop conversations (no task has messages).'));
  } else {
    parts.push(
      note('Share of conversations (Coop tasks with at least one message) carrying each label of the communication judge (paper figure 6, appendix F).'),
    );
    const groups = COMMUNICATION_ERRORS.map((group) => ({
      group,
      series: group.labels.map((l, i) => ({ name: `${l.id} ${l.name}`, color: PALETTE[(i * 2) % PALETTE.length] })),
      bars: errors.map((e) => ({ label: e.team, segments: group.labels.map((l) => (e.byLabel[l.id] ?? 0) / e.conversations) })),
    }));
    // One scale for the three charts, so that their bars compare.
    const largest = Math.max(...groups.flatMap((g) => g.bars.map((b) => b.segments.reduce((s, v) => s + v, 0))));
    const max = Math.min(1, Math.max(0.1, Math.ceil(largest * 10) / 10));
    const charts = groups.map(({ group, series, bars }) =>
      figure(legend(series) + stackedBars(`errors-${group.group}`, group.group, bars, series, max, { labelWidth: 110, plotWidth: 220 }), group.group),
    );
    parts.push(`<div class="figures">${charts.join('')}</div>`);
    const ids = [...new Set([...COMMUNICATION_ERRORS.flatMap((g) => g.labels.map((l) => l.id)), ...errors.flatMap((e) => Object.keys(e.byLabel))])];
    parts.push(
      table(
        ['model', num('conversations'), ...ids.map(num)],
        errors.map((e) => [e.team, e.conversations, ...ids.map((id) => e.byLabel[id] ?? 0)]),
      ),
      trustTable('communication', trust.communication, ids),
    );
  }
  parts.push('<h3>Failure symptoms</h3>');
  if (!labelCounts[JUDGES.symptoms]) {
    parts.push(note(`No failure-symptom labels: the symptoms judge has not labelled this run (${symptoms.failedTasks} failed Coop task(s)).`));
  } else {
    const isCoordination = (label: string) => normalizeLabel(label) !== normalizeLabel(IMPLEMENTATION_FAILURE);
    const coordinationTotal = symptoms.rows.reduce((n, r) => n + (isCoordination(r.label) ? r.primary : 0), 0);
    const share = (label: string, primary: number) => (isCoordination(label) && coordinationTotal > 0 ? pct(primary / coordinationTotal) : '–');
    parts.push(
      note(
        `Symptoms of ${symptoms.labeledTasks} labelled of ${symptoms.failedTasks} failed Coop task(s) (paper table 1). Share: of the primary coordination symptoms, as in table 1; implementation failures (no conversation evidence of a coordination breakdown) are counted apart.`,
      ),
      trustNote('symptoms', trust.symptoms),
      table(
        ['symptom', 'meaning', num('primary'), num('share'), num('secondary'), num('precision (test, primary)'), num('recall (test, primary)')],
        symptoms.rows.map((r) => [
          r.label,
          r.meaning ?? '',
          r.primary,
          share(r.label, r.primary),
          r.secondary,
          ...trustCells(trust.symptoms?.labels[normalizeLabel(r.label)] ?? null),
        ]),
      ),
    );
  }
  return section('errors', 'Communication errors and failure symptoms', parts);
}
