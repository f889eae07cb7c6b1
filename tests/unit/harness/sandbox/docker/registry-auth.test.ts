// Registry credentials as the Docker CLI finds them: credHelpers, credsStore, inline auths; each
// helper a real program on PATH (`docker-credential-<name> get`, the host on stdin).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { registryAuth } from '../../../../../harness/sandbox/docker/registry-auth.ts';
import { UserError } from '../../../../../harness/errors.ts';

let bin: string;
const path = process.env.PATH;

function helper(name: string, script: string): void {
  const file = join(bin, `docker-credential-${name}`);
  writeFileSync(file, `#!/bin/sh\n[ "$1" = get ] || exit 2\nread -r host\n${script}\n`);
  chmodSync(file, 0o755);
}

beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'cred-helpers-'));
  process.env.PATH = `${bin}${delimiter}${path}`;
  helper('gcr', `printf '{"ServerURL":"%s","Username":"oauth2accesstoken","Secret":"gcr-secret-for-%s"}' "$host" "$host"`);
  helper('desktop', `printf '{"ServerURL":"%s","Username":"<token>","Secret":"identity-%s"}' "$host" "$host"`);
  helper('empty', `echo "credentials not found in native keychain" >&2; exit 1`);
  helper('broken', `echo "keychain locked" >&2; exit 1`);
});

afterAll(() => {
  process.env.PATH = path;
  rmSync(bin, { recursive: true, force: true });
});

describe('registry credentials', () => {
  it("a registry's own helper (credHelpers) comes first, asked with the registry's host", async () => {
    const config = { credHelpers: { 'gcr.example:5000': 'gcr' }, credsStore: 'desktop', auths: { 'gcr.example:5000': { auth: 'dTpw' } } };
    expect(await registryAuth('gcr.example:5000/team/images', config)).toEqual({
      username: 'oauth2accesstoken',
      password: 'gcr-secret-for-gcr.example:5000',
      serveraddress: 'gcr.example:5000',
    });
  });

  it('else the store every login goes to (credsStore); a <token> username is an identity token', async () => {
    const config = { credHelpers: { other: 'gcr' }, credsStore: 'desktop', auths: { 'reg.example': {} } };
    expect(await registryAuth('reg.example/x', config)).toEqual({ identitytoken: 'identity-reg.example', serveraddress: 'reg.example' });
  });

  it('else the inline auths entry; nothing stored is an anonymous push', async () => {
    expect(await registryAuth('reg.example/x', { auths: { 'reg.example': { auth: 'dTpw' } } })).toEqual({ auth: 'dTpw', serveraddress: 'reg.example' });
    expect(await registryAuth('reg.example/x', {})).toBeUndefined();
    expect(await registryAuth('reg.example/x', { credsStore: 'empty' })).toBeUndefined();
  });

  it('a helper that fails or is missing is a clear error naming it, not an anonymous push', async () => {
    await expect(registryAuth('reg.example/x', { credsStore: 'broken' })).rejects.toThrow(
      /^the credential helper docker-credential-broken \(from the Docker config\) failed for reg\.example: exit 1: keychain locked/,
    );
    await expect(registryAuth('reg.example/x', { credHelpers: { 'reg.example': 'ecr-login' } })).rejects.toThrow(
      /docker-credential-ecr-login .*not found on PATH/,
    );
    await expect(registryAuth('reg.example/x', { credsStore: '../../bin/sh' })).rejects.toBeInstanceOf(UserError);
  });
});
