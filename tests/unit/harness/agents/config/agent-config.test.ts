// The agent configuration file: what it may say, what it renders, and the hash that tells two
// configurations apart.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentPrompts, DEFAULT_AGENT_CONFIG, loadAgentConfig } from '../../../../../harness/agents/config/agent-config.ts';
import { UserError } from '../../../../../harness/errors.ts';
import { feature, writeAgentConfig } from '../agent-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'agent-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const coop = { agentId: 'agent1', features: [feature], partners: ['agent2'], messaging: true };

describe('the agent configuration', () => {
  it('ships the prompts, tools and limits the agent uses by default', () => {
    const config = loadAgentConfig();
    expect(config).toMatchObject({
      source: DEFAULT_AGENT_CONFIG,
      tools: ['bash', 'str_replace_based_edit_tool', 'send_message', 'finish'],
      stepLimit: 100,
      costLimitUsd: null,
      timeLimitSeconds: null,
    });
    expect(config.compaction.threshold).toBe(0.8);
    const { system, task } = agentPrompts(config, coop);
    expect(system).toMatch(/^You are an expert software engineer working in a sandboxed Linux container/);
    expect(task).toMatch(
      /^You are agent1, a software engineer implementing one feature in the repository at \/workspace\/repo, in parallel with another agent \(agent2\) who is implementing a different feature in their own copy of the same repository\./,
    );
    expect(task).toContain('## Coordinating with your colleague\n\nYou can message them with the `send_message` tool');
    expect(task).not.toContain('{{');
    const solo = agentPrompts(config, {
      agentId: 'agent1',
      features: [feature, { ...feature, id: 2, description: '# Title: Add --quiet' }],
      partners: [],
      messaging: false,
    }).task;
    expect(solo).toContain('## Features\n\n### Feature 1\n\n# Title: Add --verbose');
    expect(solo).not.toMatch(/colleague|agent2/);
  });

  it("hashes what decides the agent's behaviour: the same configuration in another file has the same hash", () => {
    const same = writeAgentConfig(dir, 'same.json', {});
    expect(loadAgentConfig(same).hash).toBe(loadAgentConfig().hash);
    expect(loadAgentConfig(writeAgentConfig(dir, 'prompt.json', { system_template: 'You are a careful engineer.' })).hash).not.toBe(loadAgentConfig().hash);
    expect(loadAgentConfig(undefined, { stepLimit: 50 }).hash).not.toBe(loadAgentConfig().hash);
    expect(loadAgentConfig(undefined, { stepLimit: 50 }).stepLimit).toBe(50);
  });

  it('refuses a template that uses a value its prompt does not have, and other mistakes, with one line', () => {
    const problems = {
      unknown: { coop_template: 'You are {{agent_name}}.' },
      unclosed: { solo_template: '{{#messaging}}talk' },
      noFinish: { tools: ['bash'] },
      threshold: { compaction: { threshold: 1.5, summary_template: 's', resume_template: '{{task}}' } },
      missingFile: { system_template: { file: 'nowhere.md' } },
    };
    const messages = Object.entries(problems).map(([name, change]) => {
      try {
        loadAgentConfig(writeAgentConfig(dir, `${name}.json`, change));
        return 'no error';
      } catch (error) {
        expect(error).toBeInstanceOf(UserError);
        return (error as Error).message;
      }
    });
    for (const message of messages) expect(message).not.toContain('\n');
    expect(messages[0]).toMatch(/coop_template in .*unknown\.json: unknown value \{\{agent_name\}\}; this template can use \{\{agent_id\}\}/);
    expect(messages[1]).toMatch(/solo_template in .*: the section \{\{…messaging\}\} is not closed/);
    expect(messages[2]).toMatch(/tools: must include finish/);
    expect(messages[3]).toMatch(/compaction\.threshold: /);
    expect(messages[4]).toMatch(/system_template: cannot read .*nowhere\.md \(ENOENT\)/);
    writeFileSync(join(dir, 'broken.json'), '{');
    expect(() => loadAgentConfig(join(dir, 'broken.json'))).toThrow(/^bad agent configuration .*broken\.json: not valid JSON/);
    expect(() => loadAgentConfig(join(dir, 'absent.json'))).toThrow(
      /^cannot read agent configuration .*absent\.json \(ENOENT\): check the path given to --agent-config$/,
    );
  });

  it("holds the belief probe's question, outside the hash; a question naming another value is refused", () => {
    const shipped = loadAgentConfig();
    expect(shipped.probe?.render({ partners: 'agent2' })).toContain('Which files and which functions (or methods, classes) is agent2 changing');
    const other = loadAgentConfig(writeAgentConfig(dir, 'probe.json', { probe_template: 'What is {{partners}} doing? JSON please.' }));
    expect(other.hash).toBe(shipped.hash);
    const { probe_template: _, ...without } = JSON.parse(readFileSync(DEFAULT_AGENT_CONFIG, 'utf8')) as Record<string, unknown>;
    const none = join(dir, 'no-probe.json');
    writeFileSync(none, JSON.stringify({ ...without, system_template: 's', solo_template: 't', coop_template: 'c' }));
    expect(loadAgentConfig(none).probe).toBeUndefined();
    expect(() => loadAgentConfig(writeAgentConfig(dir, 'bad-probe.json', { probe_template: 'Is {{task}} done?' }))).toThrow(
      /probe_template .*unknown value \{\{task\}\}.*\{\{partners\}\}/,
    );
  });
});
