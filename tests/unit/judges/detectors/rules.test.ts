import { beforeAll, describe, expect, it } from 'vitest';
import { DOUBT_RULES } from '../../../../judges/detectors/commitment-doubts.ts';
import { READING_RULES } from '../../../../judges/detectors/commitment-reading-rules.ts';
import { FRAME_RULES } from '../../../../judges/detectors/commitment-frames.ts';
import { REPLY_RULES } from '../../../../judges/detectors/commitment-reply-rules.ts';
import { VERB_WORDS } from '../../../../judges/detectors/commitment-verb-words.ts';
import { WORD_CLASSES } from '../../../../judges/detectors/commitment-word-classes.ts';
import { DUPLICATE_RULES } from '../../../../judges/detectors/duplicates.ts';
import { PLAN_RULES } from '../../../../judges/detectors/first-turn-plan.ts';
import { QUESTION_RULES } from '../../../../judges/detectors/questions.ts';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { firesOn, type RuleTable } from '../../../../judges/detectors/rules.ts';

beforeAll(async () => {
  await loadLanguage();
});

const tables: RuleTable<never, string, unknown>[] = [
  PLAN_RULES,
  QUESTION_RULES,
  DUPLICATE_RULES,
  READING_RULES,
  FRAME_RULES,
  VERB_WORDS,
  WORD_CLASSES,
  REPLY_RULES,
  DOUBT_RULES,
] as unknown as RuleTable<never, string, unknown>[];
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
