// A calibration case built by hand in a test: the gold fields a test does not exercise default to
// "nothing found", so each test writes only its messages, patches and the gold it checks.
import type { CalibrationCase } from '../../judges/calibration/cases.ts';

type Gold = CalibrationCase['gold'];

export function handCase(c: {
  id: string;
  messages: { from: string; text: string; act: string }[];
  patches: Record<string, string>;
  gold: Partial<Gold>;
  split?: CalibrationCase['split'];
}): CalibrationCase {
  const gold: Partial<Gold> = {
    unanswered_question: [],
    near_duplicate: [],
    first_turn_plan: false,
    broken_commitment: [],
    line_number_mentions: 0,
    file_path_mentions: 0,
    communication: null,
    ...c.gold,
  };
  return { shape: 'hand-built', agents: ['agent1', 'agent2'], split: 'train', file: 'hand.json', ...c, gold } as unknown as CalibrationCase;
}
