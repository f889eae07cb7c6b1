import { z } from 'zod';
import { defineTool } from './tool.ts';

export const finishTool = defineTool({
  name: 'finish',
  description: 'Declare your work done. Your patch is the current state of the repository.',
  schema: z.object({ summary: z.string().optional().describe('what you did, in a few lines') }),
  async run({ summary }) {
    return { output: summary ?? 'finished', finish: true };
  },
});
