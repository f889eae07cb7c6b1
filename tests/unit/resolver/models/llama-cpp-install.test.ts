import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { llamaCppInstallCommand } from '../../../../resolver/models/llama-cpp-model.ts';

describe('the command that installs node-llama-cpp (an optional peer dependency)', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'llama-install-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const packageAt = async (...parts: string[]) => {
    const root = path.join(dir, ...parts);
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'coop-bench', peerDependencies: { 'node-llama-cpp': '^3.22.1' } }));
    return root;
  };

  it("in a clone: npm's global folder (npm never installs a project's own optional peer dependency)", async () => {
    const root = await packageAt('clone');
    expect(llamaCppInstallCommand(root)).toBe('npm install --global node-llama-cpp@^3.22.1');
    expect(llamaCppInstallCommand(`${root}/`)).toBe('npm install --global node-llama-cpp@^3.22.1');
  });

  it('installed with npm install -g: beside coop-bench in the same prefix', async () => {
    const root = await packageAt('prefix', 'lib', 'node_modules', 'coop-bench');
    expect(llamaCppInstallCommand(root)).toBe(`npm install --global --prefix ${path.join(dir, 'prefix')} node-llama-cpp@^3.22.1`);
  });

  it("installed as a project's dependency: into that project", async () => {
    const root = await packageAt('my project', 'node_modules', 'coop-bench');
    expect(llamaCppInstallCommand(root)).toBe(`npm install --prefix '${path.join(dir, 'my project')}' node-llama-cpp@^3.22.1`);
  });
});
