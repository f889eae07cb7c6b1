// scripts/bundle.mjs and bin/bundle.js: the prebuilt bundle runs the command line as the sources do,
// and bin/coop-bench.js takes it only while it was built from the sources as they are now.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MANIFEST, currentBundle, sourcesHash } from '../../../bin/bundle.js';
import { bundle } from '../../../scripts/bundle.mjs';
import { PROJECT_ROOT } from '../../../harness/paths.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'coop-bench-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command line from `entry` (a module exporting main), as bin/coop-bench.js calls it; `loader`: node's options before it. */
const cli = (entry: string, args: string[], loader: string[] = []) =>
  run(
    process.execPath,
    [
      ...loader,
      '--input-type=module',
      '-e',
      `await (await import(${JSON.stringify(entry)})).main([process.argv[0], "coop-bench", ...process.argv.slice(1)])`,
      '--',
      ...args,
    ],
    {
      env: { ...process.env, NO_COLOR: '1' },
    },
  );

describe('the bundle of the sources', () => {
  // Beside a link to the project's packages, which the bundle leaves in node_modules.
  const out = join(dir, 'dist');
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'));
  const built = bundle(out);

  it('is current right after it is built, and runs commands that read files beside their sources as the sources do', async () => {
    await built;
    const entry = currentBundle(out);
    expect(entry).toBe(pathToFileURL(join(out, 'cli.js')).href);
    const sources = pathToFileURL(join(PROJECT_ROOT, 'harness', 'cli.ts')).href;
    const pools = await cli(entry!, ['pools', 'list']);
    expect(pools.stdout).toContain('argkit_task/task1  6 features  15 pairs  Dockerfile');
    expect(pools.stdout).toBe((await cli(sources, ['pools', 'list'], ['--import', 'tsx'])).stdout);
    // The plan reads the shipped agent configuration beside its source.
    const dryRun = ['run', '--models', 'oracle', '--pool', 'argkit_task', '--features', '1,2', '--dry-run', '--runs-dir', join(dir, 'runs')];
    expect((await cli(entry!, dryRun)).stdout).toBe((await cli(sources, dryRun, ['--import', 'tsx'])).stdout);
  }, 120_000);
});

describe('whether a bundle is current', () => {
  const root = join(dir, 'root');
  const out = join(root, 'dist');
  const inputs = ['harness/cli.ts', 'harness/paths.ts'];
  const write = (file: string, text: string) => writeFileSync(join(root, file), text);
  const manifest = () => writeFileSync(join(out, MANIFEST), JSON.stringify({ entry: 'cli.js', inputs, hash: sourcesHash(inputs, root) }));

  it('is by the sources it was built from: unchanged contents keep it, a changed or removed source or no manifest does not', () => {
    mkdirSync(join(root, 'harness'), { recursive: true });
    mkdirSync(out, { recursive: true });
    write('harness/cli.ts', 'export const a = 1;\n');
    write('harness/paths.ts', 'export const b = 2;\n');
    expect(currentBundle(out, root)).toBeUndefined();
    manifest();
    expect(currentBundle(out, root)).toBe(pathToFileURL(join(out, 'cli.js')).href);
    // Another time, same contents (a checkout, an unpacked package): still current.
    utimesSync(join(root, 'harness/cli.ts'), new Date(2000, 0, 1), new Date(2000, 0, 1));
    expect(currentBundle(out, root)).toBeDefined();
    write('harness/cli.ts', 'export const a = 3;\n');
    expect(currentBundle(out, root)).toBeUndefined();
    manifest();
    unlinkSync(join(root, 'harness/paths.ts'));
    expect(currentBundle(out, root)).toBeUndefined();
  });
});
