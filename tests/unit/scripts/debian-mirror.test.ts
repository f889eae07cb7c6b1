// scripts/debian-mirror.sh: the Debian archive that setup-docker.sh seeds debian:bookworm-slim
// from is the one this machine's apt uses, read from sources files in both of apt's formats.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../harness/paths.ts';

const FIXTURES = path.join(PROJECT_ROOT, 'tests/fixtures/apt-sources');

describe('scripts/debian-mirror.sh', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'debian-mirror-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Runs the script with apt reading the sources of fixture folder `name` (APT_CONFIG, as apt documents). */
  async function mirrorOf(name: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const config = path.join(dir, `${name}.conf`);
    const sources = path.join(FIXTURES, name);
    await writeFile(config, `Dir::Etc::sourcelist "${sources}/sources.list";\nDir::Etc::sourceparts "${sources}/sources.list.d";\n`);
    const run = promisify(execFile)('bash', [path.join(PROJECT_ROOT, 'scripts/debian-mirror.sh'), ...args], { env: { ...process.env, APT_CONFIG: config } });
    return run.then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  }

  it('one-line format: the first deb entry of the suite with main, not security, updates or deb-src', async () => {
    expect(await mirrorOf('one-line')).toEqual({ code: 0, stdout: 'http://deb.example.invalid/debian/\n', stderr: '' });
  });

  it('deb822 format: disabled entries and files of other extensions are passed over, as apt does', async () => {
    const result = await mirrorOf('deb822');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('http://deb.example.invalid/debian/\n');
  });

  it('a suite no entry serves is an error that says what to set', async () => {
    expect(await mirrorOf('deb822', 'trixie')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'debian-mirror: apt has no Debian archive for trixie (main) in /etc/apt/sources.list or /etc/apt/sources.list.d/; set DEBIAN_MIRROR to the URL of one\n',
    });
  });
});
