// What the agent loop tests share: a sandbox in memory, a task to work on, configurations.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_AGENT_CONFIG } from '../../../../harness/agents/config/agent-config.ts';
import { Trajectory } from '../../../../harness/agents/trajectory.ts';
import type { AgentContext } from '../../../../harness/agents/types.ts';
import type { ExecResult, Sandbox } from '../../../../harness/sandbox/types.ts';
import type { Pool } from '../../../../tasks/types.ts';

/** Files in memory; every command "succeeds" and echoes itself, unless `output` says otherwise. */
export class MemorySandbox implements Sandbox {
  readonly id = 'memory';
  readonly files = new Map<string, string>();
  readonly commands: string[][] = [];

  constructor(private readonly output: (cmd: string[]) => string | undefined = () => undefined) {}

  async exec(cmd: string[]): Promise<ExecResult> {
    this.commands.push(cmd);
    if (cmd[0] === 'sh' && cmd[2]?.includes('[ -d "$1" ]')) return result(this.files.has(cmd[4]) ? 'file\n' : '');
    return result(this.output(cmd) ?? `ran ${cmd.join(' ')}\n`);
  }

  async readFile(path: string): Promise<string> {
    const text = this.files.get(path);
    if (text === undefined) throw new Error(`no ${path}`);
    return text;
  }

  async writeFile(path: string, content: string | Buffer): Promise<void> {
    this.files.set(path, content.toString());
  }
}

const result = (stdout: string): ExecResult => ({ exitCode: 0, stdout, stderr: '', timedOut: false, truncated: false });

export const feature = { id: 1, dir: '/pool/feature1', description: '# Title: Add --verbose\n\nAdd a verbose flag.', patchPath: '', testsPatchPath: '' };
export const pool = { repo: 'demo_task', taskId: 1, dir: '/pool', features: [feature], publishedImage: 'x' } as Pool;

export function agentContext(overrides: Partial<AgentContext> = {}): AgentContext {
  return {
    agentId: 'agent1',
    sandbox: new MemorySandbox(),
    pool,
    features: [feature],
    partners: [],
    trajectory: new Trajectory(),
    signal: new AbortController().signal,
    isInfrastructureError: () => false,
    ...overrides,
  };
}

/** The shipped agent configuration with some fields changed, written to `dir`; its path. */
export function writeAgentConfig(dir: string, name: string, changes: Record<string, unknown>): string {
  const shipped = JSON.parse(readFileSync(DEFAULT_AGENT_CONFIG, 'utf8')) as Record<string, unknown>;
  // Template files stay where they are: their paths are made absolute.
  const located = JSON.parse(JSON.stringify(shipped), (key, value: unknown) =>
    key === 'file' && typeof value === 'string' ? join(dirname(DEFAULT_AGENT_CONFIG), value) : value,
  ) as Record<string, unknown>;
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ ...located, ...changes }, null, 2));
  return file;
}
