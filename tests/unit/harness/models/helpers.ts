import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolSpec } from '../../../../harness/models/index.ts';

/** A fresh directory (optionally with files such as `.env`), removed by `cleanupDirs`. */
const dirs: string[] = [];
export async function tempDir(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'coop-models-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}
export async function cleanupDirs(): Promise<void> {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export const bashTool: ToolSpec = {
  name: 'bash',
  description: 'Run a shell command in the repository.',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
};

/** Looks like a real key, so a leak would show in assertions. */
export const OPENAI_TEST_KEY = 'sk-test-openai-0123456789abcdef';
export const ANTHROPIC_TEST_KEY = 'sk-ant-test-0123456789abcdef';

/** A local port nothing listens on: for connection errors. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
