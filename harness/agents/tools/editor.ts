// A file editor in the shape of the common str_replace editor: view, create, str_replace, insert,
// undo. Files are read and written through the sandbox; undo history is kept here, per path.
import { posix } from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolResult } from './tool.ts';
import { clip } from './bash.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { WORKSPACE } from '../../../tasks/prompts.ts';

const SNIPPET_LINES = 4;

const schema = z.object({
  command: z.enum(['view', 'create', 'str_replace', 'insert', 'undo_edit']),
  path: z.string().min(1).describe(`file or folder, absolute or relative to ${WORKSPACE}`),
  view_range: z.array(z.number().int()).length(2).optional().describe('view: [first, last] line, 1-based; last -1 means to the end'),
  file_text: z.string().optional().describe('create: the whole file'),
  old_str: z.string().optional().describe('str_replace: text that occurs exactly once'),
  new_str: z.string().optional().describe('str_replace / insert: the new text'),
  insert_line: z.number().int().nonnegative().optional().describe('insert: after this line (0 = at the top)'),
});

type EditorArgs = z.infer<typeof schema>;

function numbered(text: string, first = 1): string {
  return text
    .split('\n')
    .map((line, i) => `${String(first + i).padStart(6)}\t${line}`)
    .join('\n');
}

function snippet(text: string, aroundLine: number, lines: number): string {
  const all = text.split('\n');
  const start = Math.max(0, aroundLine - SNIPPET_LINES);
  const end = Math.min(all.length, aroundLine + lines + SNIPPET_LINES);
  return numbered(all.slice(start, end).join('\n'), start + 1);
}

async function exists(sandbox: Sandbox, path: string): Promise<'file' | 'dir' | undefined> {
  const r = await sandbox.exec(['sh', '-c', 'if [ -d "$1" ]; then echo dir; elif [ -e "$1" ]; then echo file; fi', 'sh', path]);
  const kind = r.stdout.trim();
  return kind === 'dir' || kind === 'file' ? kind : undefined;
}

/** Undo history: path -> earlier contents (undefined: the file did not exist). */
type History = Map<string, (string | undefined)[]>;

async function edit(sandbox: Sandbox, history: History, path: string, before: string | undefined, after: string): Promise<void> {
  history.set(path, [...(history.get(path) ?? []), before]);
  await sandbox.writeFile(path, after);
}

const fail = (output: string): ToolResult => ({ output: `Error: ${output}`, exitCode: 1 });

async function run(args: EditorArgs, sandbox: Sandbox, history: History): Promise<ToolResult> {
  const path = posix.resolve(WORKSPACE, args.path);
  const kind = await exists(sandbox, path);
  switch (args.command) {
    case 'view': {
      if (!kind) return fail(`${path} does not exist`);
      if (kind === 'dir') {
        const r = await sandbox.exec(
          ['find', path, '-maxdepth', '2', '-not', '-path', '*/.git', '-not', '-path', '*/.git/*', '-not', '-path', '*/node_modules/*'],
          { maxOutputBytes: 64 * 1024 },
        );
        return { output: clip(r.stdout) };
      }
      const text = await sandbox.readFile(path);
      if (!args.view_range) return { output: clip(numbered(text)) };
      const [first, last] = args.view_range;
      const lines = text.split('\n');
      if (first < 1 || first > lines.length) return fail(`view_range starts at ${first} but the file has ${lines.length} lines`);
      const end = last === -1 ? lines.length : Math.min(last, lines.length);
      return { output: clip(numbered(lines.slice(first - 1, end).join('\n'), first)) };
    }
    case 'create': {
      if (args.file_text === undefined) return fail('create needs file_text');
      if (kind) return fail(`${path} already exists: use str_replace or insert to change it`);
      await edit(sandbox, history, path, undefined, args.file_text);
      return { output: `created ${path}` };
    }
    case 'str_replace': {
      if (kind !== 'file') return fail(`${path} is not a file`);
      if (args.old_str === undefined) return fail('str_replace needs old_str');
      const text = await sandbox.readFile(path);
      const count = text.split(args.old_str).length - 1;
      if (count !== 1)
        return fail(count === 0 ? `old_str does not occur in ${path}` : `old_str occurs ${count} times in ${path}; include more context to make it unique`);
      const at = text.indexOf(args.old_str);
      const replacement = args.new_str ?? '';
      const after = text.slice(0, at) + replacement + text.slice(at + args.old_str.length);
      await edit(sandbox, history, path, text, after);
      const line = text.slice(0, at).split('\n').length - 1;
      return { output: `edited ${path}:\n${snippet(after, line, replacement.split('\n').length)}` };
    }
    case 'insert': {
      if (kind !== 'file') return fail(`${path} is not a file`);
      if (args.insert_line === undefined || args.new_str === undefined) return fail('insert needs insert_line and new_str');
      const text = await sandbox.readFile(path);
      const lines = text.split('\n');
      if (args.insert_line > lines.length) return fail(`insert_line ${args.insert_line} is past the end (${lines.length} lines)`);
      const inserted = args.new_str.split('\n');
      const after = [...lines.slice(0, args.insert_line), ...inserted, ...lines.slice(args.insert_line)].join('\n');
      await edit(sandbox, history, path, text, after);
      return { output: `inserted into ${path}:\n${snippet(after, args.insert_line, inserted.length)}` };
    }
    case 'undo_edit': {
      const earlier = history.get(path);
      if (!earlier?.length) return fail(`no edit of ${path} to undo`);
      const previous = earlier.pop();
      if (previous === undefined) await sandbox.exec(['rm', '-f', path]);
      else await sandbox.writeFile(path, previous);
      return { output: `undid the last edit of ${path}` };
    }
  }
}

/** One editor per agent: its undo history is that agent's. */
export function createEditorTool() {
  const history: History = new Map();
  return defineTool({
    name: 'str_replace_based_edit_tool',
    description:
      'View, create and edit files. view: a file with line numbers (optionally a line range) or a folder listing. create: a new file. str_replace: replace text that occurs exactly once. insert: add text after a line. undo_edit: revert your last edit of a file.',
    schema,
    run: (args, { sandbox }) => run(args, sandbox, history),
  });
}
