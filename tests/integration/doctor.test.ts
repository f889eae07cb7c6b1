// `coop-bench doctor` as a user runs it: on this machine (a real engine) and with no engine at all.
import { describe, expect, it } from 'vitest';
import { coopBench, tempDir } from '../helpers/cli.ts';

const runs = tempDir('doctor');

describe('coop-bench doctor', () => {
  it('on a machine without Docker, says exactly what to do', async () => {
    const result = await coopBench(['doctor', '--runs-dir', runs], { env: { DOCKER_HOST: 'unix:///nonexistent/docker.sock' } });
    expect(result.exitCode, result.all).toBe(1);
    expect(result.stdout).toMatch(
      /^FAIL {2}docker engine: no Docker engine reachable at unix:\/\/\/nonexistent\/docker\.sock \(connect ENOENT \/nonexistent\/docker\.sock\): DOCKER_HOST names no running engine: unset DOCKER_HOST to use the local one, or point it at a running engine; to install and start a local engine run `bash scripts\/setup-docker\.sh`/m,
    );
    expect(result.stdout).toMatch(/^skip {2}images: base and pool images need the Docker engine$/m);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('1 problem to fix: see the FAIL lines above, then run coop-bench doctor again');
  });

  it('checks the engine, images, keys of the requested models, disk space and the runs folder', async () => {
    const result = await coopBench(['doctor', '--models', 'gpt-5,claude,oracle', '--runs-dir', runs], {
      env: { OPENAI_API_KEY: 'sk-doctor-test', ANTHROPIC_API_KEY: '' },
    });
    expect(result.exitCode, result.all).toBe(1);
    for (const line of [
      /^ok {4}docker engine: Docker \S+ at /m,
      /^ok {4}base images: debian:bookworm-slim$/m,
      /^ok {4}pool images: \d+ ready, \d+ to be built on first use/m,
      /^ok {4}model gpt-5: gpt-5 at api\.openai\.com, key from OPENAI_API_KEY \(not verified online\)$/m,
      /^FAIL {2}model claude: no API key for model "claude": set ANTHROPIC_API_KEY in the environment or in \.\/\.env$/m,
      /^ok {4}model oracle: built in, needs no key$/m,
      /^(ok {3}|warn |FAIL ) disk \(runs\): [\d.]+ GiB free at /m,
      /^ok {4}runs dir: .* is writable$/m,
    ]) {
      expect(result.stdout).toMatch(line);
    }
    expect(result.stdout).not.toContain('sk-doctor-test');
  });

  it('exits 0 when nothing needs fixing', async () => {
    const result = await coopBench(['doctor', '--models', 'oracle', '--runs-dir', runs]);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^ready/);
  });
});
