import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadReadings, readingsFile } from '../../../../judges/calibration/readings.ts';
import { JudgeInputError } from '../../../../judges/errors.ts';
import { startFakeVllm, type FakeOpenAIServer } from '../../../fakes/openai-server.ts';
import { runJudge } from '../run-judge-command.ts';

// Two judges on one small case file keep the calibration short.
const SELECTION = ['--only', 'speech_acts,commitments', '--case-files', 'edges.json'];

/** The printed figures, without what the calls cost (a stored answer costs nothing) and where the answers came from. */
const figures = (out: string) => out.slice(out.indexOf('LLM judges ('), out.indexOf('  cost: '));

/** A judge model that calls every message a plan (quoting its first 40 characters) and reads no commitment. */
function judgeReply(request: { body: { messages: { content: unknown }[] } }): string {
  const system = String(request.body.messages[0]!.content);
  if (!system.startsWith('You classify')) return '{"commitments": []}';
  const user = String(request.body.messages.at(-1)!.content);
  const messages = [...user.matchAll(/<<<\w+ BEGIN message id=(\d+)[^\n]*>>>\n((?:(?!\n<<<)[\s\S]){1,40})/g)];
  return JSON.stringify({ messages: messages.map((m) => ({ id: Number(m[1]), act: 'plan', quote: m[2]!.replace(/\s+/g, ' ').trim() })) });
}

describe("a judge model's readings of the calibration prompts", () => {
  let dir: string;
  let server: FakeOpenAIServer;
  let spec: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readings-'));
    server = await startFakeVllm({ served: ['judge'], handler: judgeReply });
    spec = `openai:judge@${server.url}`;
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    process.exitCode = undefined;
  });

  it('are recorded once with --record and replayed without a call to the model, giving the same figures', { timeout: 300_000 }, async () => {
    const args = ['--calibrate', '--judge-model', spec, ...SELECTION, '--readings-dir', dir];
    const file = readingsFile(dir, spec);
    const recorded = await runJudge([...args, '--record']);
    const calls = server.requests.length;
    expect(calls).toBeGreaterThan(0);
    expect(recorded).toContain(`Readings of ${spec}: 0 answer(s) from ${file}, ${calls} asked of the model (recorded there).`);
    const readings = loadReadings(dir, spec);
    expect(readings.byHash.size).toBe(calls);
    expect([...readings.byHash.values()].map((r) => r.judge).sort()).toEqual(expect.arrayContaining(['commitments', 'speech_acts']));

    const replayed = await runJudge(args);
    expect(server.requests).toHaveLength(calls);
    expect(replayed).toContain(`Readings of ${spec}: ${calls} answer(s) from ${file}, 0 asked of the model.`);
    expect(figures(replayed)).toEqual(figures(recorded));
    expect(figures(replayed)).toMatch(/speech_acts\s+plan\s+\d+/);
    expect(process.exitCode).toBe(0);
  });

  it('are not written without --record, and the model is asked again', { timeout: 300_000 }, async () => {
    const args = ['--calibrate', '--judge-model', spec, ...SELECTION, '--readings-dir', dir];
    const out = await runJudge(args);
    expect(out).toContain('asked of the model (not recorded: add --record to store them)');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('are written in a stable order: model, figures, then entries sorted by hash with keys hash, judge, case, answer', { timeout: 300_000 }, async () => {
    await runJudge(['--calibrate', '--judge-model', spec, ...SELECTION, '--readings-dir', dir, '--record']);
    const stored = JSON.parse(readFileSync(readingsFile(dir, spec), 'utf8'));
    expect(Object.keys(stored)).toEqual(['model', 'scores', 'readings']);
    expect(stored.model).toBe(spec);
    const hashes = stored.readings.map((r: { hash: string }) => r.hash);
    expect(hashes).toEqual([...hashes].sort());
    for (const r of stored.readings) expect(Object.keys(r)).toEqual(['hash', 'judge', 'case', 'answer']);
  });

  it('are imported from answers written by hand for the exported prompts, and scored without a model', { timeout: 300_000 }, async () => {
    const prompts = join(dir, 'prompts');
    const exported = await runJudge(['--export-prompts', prompts, '--only', 'commitments', '--case-files', 'edges.json']);
    const files = readdirSync(prompts).filter((f) => f.endsWith('.prompt.txt'));
    expect(exported).toContain(`Wrote ${files.length} prompt(s) to ${prompts}`);
    expect(files.length).toBeGreaterThan(0);
    const text = readFileSync(join(prompts, files[0]!), 'utf8');
    expect(text).toMatch(/^=== SYSTEM ===\nYou read the messages[\s\S]*\n=== USER ===\n/);
    for (const f of files) writeFileSync(join(prompts, f.replace('.prompt.txt', '.answer.json')), '```json\n{"commitments": []}\n```\n');

    const readingsDir = join(dir, 'readings');
    const imported = await runJudge([
      '--import-readings',
      prompts,
      '--reader',
      'by-hand',
      '--only',
      'commitments',
      '--case-files',
      'edges.json',
      '--readings-dir',
      readingsDir,
    ]);
    expect(imported).toContain(
      `Imported ${files.length} answer(s) of by-hand into ${readingsFile(readingsDir, 'by-hand')}: ${files.length} new, 0 replaced, 0 unchanged; 0 of the ${files.length} selected question(s) still have no reading.`,
    );

    const out = await runJudge([
      '--calibrate',
      '--judge-model',
      'by-hand',
      '--only',
      'commitments',
      '--case-files',
      'edges.json',
      '--readings-dir',
      readingsDir,
    ]);
    expect(out).toMatch(/commitments\s+broken_checkable_commitment\s+0\s+0\s+\d+/);
    expect(out).toContain(`Readings of by-hand: ${files.length} answer(s) from ${readingsFile(readingsDir, 'by-hand')}, 0 asked of the model.`);
    expect(server.requests).toHaveLength(0);
  });

  it('refuse an answer that is not one of its judge, naming the file, and store nothing', { timeout: 300_000 }, async () => {
    const prompts = join(dir, 'prompts');
    await runJudge(['--export-prompts', prompts, '--only', 'commitments', '--case-files', 'edges.json']);
    const [first, second] = readdirSync(prompts).filter((f) => f.endsWith('.prompt.txt'));
    writeFileSync(join(prompts, first!.replace('.prompt.txt', '.answer.json')), '{"commitments": []}');
    const bad = join(prompts, second!.replace('.prompt.txt', '.answer.json'));
    writeFileSync(bad, '{"commitments": [{"message": "two"}]}');
    const args = ['--import-readings', prompts, '--reader', 'by-hand', '--only', 'commitments', '--case-files', 'edges.json', '--readings-dir', dir];
    await expect(runJudge(args)).rejects.toThrow(`${bad}: not an answer of the commitments judge`);
    expect(readdirSync(dir)).toEqual(['prompts']);
    // An answer to a prompt the selection does not ask.
    writeFileSync(bad, '{"commitments": []}');
    writeFileSync(join(prompts, `${'0'.repeat(64)}.answer.json`), '{"commitments": []}');
    await expect(runJudge(args)).rejects.toThrow('no question of the selected judges and cases has this hash');
  });

  it('say how many answers a reader lacks when it is no model that could be asked', { timeout: 300_000 }, async () => {
    await expect(runJudge(['--calibrate', '--judge-model', 'nobody', ...SELECTION, '--readings-dir', dir])).rejects.toThrow(
      /\d+ of the \d+ answers needed are not in .*nobody\.json, and "nobody" is no model spec to ask them of/,
    );
  });

  it('stop with the file named when a readings file does not check out', () => {
    writeFileSync(readingsFile(dir, 'broken'), JSON.stringify({ model: 'broken', readings: [{ hash: 'abc', judge: 'commitments', case: 'x', answer: '{}' }] }));
    expect(() => loadReadings(dir, 'broken')).toThrow(JudgeInputError);
    expect(() => loadReadings(dir, 'broken')).toThrow(`${readingsFile(dir, 'broken')}: readings.0.hash: a sha256 in lower-case hex`);
    writeFileSync(readingsFile(dir, 'other'), JSON.stringify({ model: 'someone-else', readings: [] }));
    expect(() => loadReadings(dir, 'other')).toThrow('holds the readings of "someone-else", not of "other"');
  });
});
