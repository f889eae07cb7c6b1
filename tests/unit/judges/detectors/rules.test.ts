import { beforeAll, describe, expect, it } from 'vitest';
import { RULE_TABLES } from '../../../../judges/detectors/index.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { firesOn, type RuleTable } from '../../../../judges/detectors/rules.ts';

beforeAll(async () => {
  await loadLanguage();
});

const tables = RULE_TABLES as unknown as RuleTable<never, string, unknown>[];
const rules = tables.flatMap((table) => table.rules.map((rule) => ({ table, rule, name: `${table.label}: ${rule.id}` })));

describe('detector rule tables', () => {
  it('give every rule a unique id, a reason, examples and non-examples', () => {
    for (const table of tables) expect(new Set(table.rules.map((r) => r.id)).size, table.label).toBe(table.rules.length);
    for (const { rule, name } of rules) {
      expect(rule.why, name).not.toBe('');
      expect(rule.examples.length, `${name} has no example`).toBeGreaterThan(0);
      expect(rule.nonExamples.length, `${name} has no non-example`).toBeGreaterThan(0);
    }
  });

  it.each(rules)('$name fires on each of its examples and on none of its non-examples', ({ table, rule }) => {
    for (const example of rule.examples) expect(firesOn(table, rule, example), JSON.stringify(example)).toBe(true);
    for (const example of rule.nonExamples) expect(firesOn(table, rule, example), JSON.stringify(example)).toBe(false);
  });
});
