// The parts of `coop-bench doctor` that need no engine: what it says for each way of having no
// Docker, the base images a Dockerfile needs, and the disk space verdicts.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diagnoseEngine } from '../../../../../harness/sandbox/docker/engine.ts';
import { baseImagesOf } from '../../../../../harness/sandbox/docker/doctor.ts';
import { checkModels, checkNode } from '../../../../../harness/commands/doctor-checks.ts';
import { diskCheck } from '../../../../../harness/sandbox/disk-check.ts';

const refused = Object.assign(new Error('connect ENOENT /var/run/docker.sock'), { code: 'ENOENT' });

describe('no Docker engine: exactly what to do', () => {
  it('Docker not installed', () => {
    expect(diagnoseEngine(refused, { PATH: '/nonexistent' })).toBe(
      'no Docker engine reachable at unix:///var/run/docker.sock (connect ENOENT /var/run/docker.sock): Docker is not installed: run `bash scripts/setup-docker.sh` (as root: installs docker.io, starts dockerd, seeds debian:bookworm-slim)',
    );
  });

  it('dockerd installed but not running', () => {
    const bin = mkdtempSync(join(tmpdir(), 'bin-'));
    writeFileSync(join(bin, 'dockerd'), '');
    expect(diagnoseEngine(refused, { PATH: bin })).toMatch(
      /: dockerd is installed but not running: run `bash scripts\/setup-docker\.sh` .*, or start dockerd yourself$/,
    );
  });

  it('a socket the user may not use', () => {
    const denied = Object.assign(new Error('connect EACCES /var/run/docker.sock'), { code: 'EACCES' });
    expect(diagnoseEngine(denied, { PATH: '/usr/bin' })).toMatch(/permission denied on the engine's socket: run as root, or add your user to the docker group/);
  });

  it('DOCKER_HOST pointing nowhere', () => {
    expect(diagnoseEngine(refused, { DOCKER_HOST: 'tcp://10.0.0.9:2375' })).toMatch(
      /^no Docker engine reachable at tcp:\/\/10\.0\.0\.9:2375 .*: DOCKER_HOST names no running engine: unset DOCKER_HOST/,
    );
  });
});

describe('doctor checks', () => {
  it('lists the base images of a Dockerfile, not its own build stages', () => {
    const dockerfile =
      'FROM --platform=linux/amd64 golang:1.22 AS build\nRUN go build\nFROM build AS test\nfrom debian:bookworm-slim\nCOPY --from=build /app /app\n';
    expect(baseImagesOf(dockerfile)).toEqual(['golang:1.22', 'debian:bookworm-slim']);
  });

  it('judges free disk space', () => {
    const GiB = 1024 ** 3;
    expect(diskCheck('disk', '/x', 1 * GiB).status).toBe('FAIL');
    expect(diskCheck('disk', '/x', 5 * GiB).status).toBe('warn');
    expect(diskCheck('disk', '/x', 50 * GiB)).toEqual({ status: 'ok', name: 'disk', detail: '50.0 GiB free at /x' });
  });

  it('needs Node 20', () => {
    expect(checkNode('18.19.0').status).toBe('FAIL');
    expect(checkNode('20.11.1').status).toBe('ok');
  });

  it('says which key each model uses, or what is missing', () => {
    const options = { env: { OPENAI_API_KEY: 'sk-x' }, cwd: tmpdir() };
    expect(checkModels(['gpt-5', 'claude', 'oracle'], options)).toEqual([
      { status: 'ok', name: 'model gpt-5', detail: 'gpt-5 at api.openai.com, key from OPENAI_API_KEY (not verified online)' },
      { status: 'FAIL', name: 'model claude', detail: 'no API key for model "claude": set ANTHROPIC_API_KEY in the environment or in ./.env' },
      { status: 'ok', name: 'model oracle', detail: 'built in, needs no key' },
    ]);
    expect(checkModels([], options)[0].status).toBe('skip');
  });
});
