// Exists claims checked against the code: a promised member that only calls show, and a pronoun
// that stands for the code the sender committed to (commitments.ts, commitment-extract.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguage } from '../../../../judges/detectors/language.ts';
import { conversation, diff, input, judge, newFile, targets } from './commitment-fixtures.ts';

beforeAll(async () => {
  await loadLanguage();
});

const release = ['     def release(self, conn):', '         self._free.put(conn)'];
/** agent1's `Pool` gets a method named `name`; the connections it drains are closed with `.close()`. */
const poolMethod = (name: string) =>
  diff(
    'dbpool/pool.py',
    13,
    13,
    [
      ' ',
      ...release.map((l) => ` ${l.slice(1)}`),
      '+',
      `+    def ${name}(self):`,
      '+        while not self._free.empty():',
      '+            self._free.get_nowait().close()',
    ],
    'class Pool:',
  );
/** agent2 calls `pool.close()` on agent1's word. */
const stopCallsClose = diff('dbpool/app.py', 3, 3, ['     return Pool(connect, size=8)', '+def stop(pool):', '+    pool.close()']);
const merged = (name: string) => `${stopCallsClose}${poolMethod(name)}`;

describe('commitments: a promised member that the code only calls', () => {
  const promises = [
    "I'll add a `close()` method to `Pool`, right after `release`, that drains the free queue.",
    "I think I'll add a `close()` method to `Pool` that closes each free connection.",
    "I'm adding `Pool.close()` after `release`; it drains the free queue.",
  ];

  it.each(promises)('is broken when the method was shipped under another name: %s', async (promise) => {
    const messages = conversation(
      ['agent1', promise],
      ['agent2', "ok, I'll call it from a `stop()` helper."],
      ['agent1', "it's in ✓ drains and closes everything."],
    );
    const labels = await judge(input(messages, { agent1: poolMethod('shutdown'), agent2: stopCallsClose }, merged('shutdown')));
    expect(labels.map((l) => l.messageId)).toEqual([1, 3]);
    expect(labels[1]!.description).toContain('`Pool.close`');
  });

  it.each(promises)('is kept when the method is there: %s', async (promise) => {
    const messages = conversation(
      ['agent1', promise],
      ['agent2', "ok, I'll call it from a `stop()` helper."],
      ['agent1', "it's in ✓ drains and closes everything."],
    );
    expect(await judge(input(messages, { agent1: poolMethod('close'), agent2: stopCallsClose }, merged('close')))).toEqual([]);
  });

  it('leaves undecided a member an unchanged line uses (it may be defined outside the hunks)', async () => {
    const messages = conversation(['agent1', "I'll add a `close()` method to `Pool`."]);
    const shownBefore = diff('dbpool/app.py', 3, 3, ['     pool.close()', '+    log("stopped")']);
    expect(await judge(input(messages, { agent1: shownBefore }, shownBefore))).toEqual([]);
  });

  it('does not take a name in a docstring or comment for code that may define it', async () => {
    const messages = conversation(['agent1', "I'll add a `close()` method to `Pool`."]);
    const documented = diff('dbpool/app.py', 3, 3, ['     pool.release(conn)', '+    # pool.close happens at exit', '+    """Then `close` drains it."""']);
    const labels = await judge(input(messages, { agent1: documented }, documented));
    expect(labels.map((l) => l.evidence[1])).toEqual([expect.objectContaining({ note: 'no line added in the merged code contains `Pool.close`' })]);
  });
});

/** A new module src/<file>.ts defining `name`, and src/index.ts gaining `line`: an export of it (kept) or not (broken). */
function reexport(file: string, name: string): { kept: string; broken: string } {
  const module = newFile(`src/${file}.ts`, [`export function ${name}(n: number): string {`, '  return String(n);', '}']);
  const index = (line: string) => diff('src/index.ts', 1, 1, [" export { version } from './version';", `+${line}`]);
  return { kept: `${module}${index(`export { ${name} } from './${file}';`)}`, broken: `${module}${index(`import { ${name} } from './${file}';`)}` };
}

describe('commitments: an export said by a participle clause', () => {
  const wordings = [
    'Same pattern for me with `formatPercent` in src/percent.ts, also re-exported from src/index.ts.',
    "I'll put it in src/percent.ts and call it `formatPercent`, exported from src/index.ts.",
    '- new `formatPercent` in src/percent.ts, re-exported from src/index.ts via `export *`',
  ];
  const { kept, broken } = reexport('percent', 'formatPercent');

  it.each(wordings)('reads the export and its module: %s', (wording) => {
    expect(targets(['agent1', wording])).toContainEqual(expect.objectContaining({ kind: 'exported', names: ['formatPercent'], module: 'src/index.ts' }));
  });

  it.each(wordings)('is broken when the module does not export it, kept when it does: %s', async (wording) => {
    await brokenThenKept(wording, broken, kept);
  });

  it('reads no export from a negated participle or the partner’s code', () => {
    expect(targets(['agent1', 'I added `formatPercent` in src/percent.ts, not exported.']).filter((t) => t.kind === 'exported')).toEqual([]);
    expect(targets(['agent1', 'I call your `formatBytes`, exported from src/index.ts.']).filter((t) => t.kind === 'exported')).toEqual([]);
  });
});

describe('commitments: an export the sender takes on for code named before', () => {
  const plan = "I'm going to add `formatBytes` to src/bytes.ts.";
  const wordings = [
    "It also needs to be re-exported from src/index.ts, since the CLI imports the package root — I'll do that too.",
    "It has to be re-exported from src/index.ts as well, and I'll handle it.",
    "It should also be exported from src/index.ts; I'll do that.",
  ];
  const { kept, broken } = reexport('bytes', 'formatBytes');

  it.each(wordings)('is broken when the module does not export it, kept when it does: %s', async (wording) => {
    const messages = conversation(['agent1', `${plan} ${wording}`]);
    const labels = await judge(input(messages, { agent1: broken }, broken));
    expect(labels.map((l) => l.messageId)).toEqual([1]);
    expect(labels[0]!.description).toContain('`formatBytes` is exported from src/index.ts');
    expect(await judge(input(messages, { agent1: kept }, kept))).toEqual([]);
  });

  it('reads no promise from a need nobody takes on', () => {
    expect(targets(['agent1', `${plan} It needs to be re-exported from src/index.ts.`]).filter((t) => t.kind === 'exported')).toEqual([]);
  });
});

describe('commitments: terse completion reports', () => {
  const reports = ['deleteJson ✓', '`deleteJson` ✅', 'deleteJson() in.', 'deleteJson ✓ exported ✓'];
  const http = (name: string) =>
    newFile('src/http.ts', [`export async function ${name}(url: string): Promise<void> {`, "  await fetch(url, { method: 'DELETE' });", '}']);

  it.each(reports)('claims the code exists: %s', async (report) => {
    const messages = conversation(['agent1', "I'll add `deleteJson(url)` to src/http.ts."], ['agent2', 'ok'], ['agent1', report]);
    const lost = http('deleteJSON');
    expect((await judge(input(messages, { agent1: lost }, lost))).map((l) => l.messageId)).toEqual([1, 3]);
    const kept = http('deleteJson');
    expect(await judge(input(messages, { agent1: kept }, kept))).toEqual([]);
  });

  it('reads no code from marks after plain words', () => {
    expect(targets(['agent1', 'Tests ✓'])).toEqual([]);
    expect(targets(['agent1', 'Looks good ✓'])).toEqual([]);
  });
});

/** The wording's message is labelled broken on `lost` (its own patch and the merge) and not on `kept`. */
async function brokenThenKept(wording: string, lost: string, kept: string): Promise<void> {
  const messages = conversation(['agent1', wording]);
  expect((await judge(input(messages, { agent1: lost }, lost))).map((l) => l.messageId)).toEqual([1]);
  expect(await judge(input(messages, { agent1: kept }, kept))).toEqual([]);
}

describe('commitments: code named after a leading label', () => {
  const wordings = [
    'Plan: `Pool.stats()` in pool/pool.py; `acquire()` stays yours.',
    'Mine: `Pool.stats()` in pool/pool.py.',
    'Plan: new `Pool.stats()` method in pool/pool.py, and nothing else.',
  ];
  const pool = (name: string) =>
    diff(
      'pool/pool.py',
      20,
      20,
      ['     def acquire(self):', '         return self._free.get()', '+', `+    def ${name}(self):`, '+        return self._free.qsize()'],
      'class Pool:',
    );

  it.each(wordings)('promises the code, broken when it is missing and kept when it is there: %s', async (wording) => {
    await brokenThenKept(wording, pool('size'), pool('stats'));
  });

  it('reads code given to the partner as left alone, not as new code of the sender', () => {
    expect(targets(['agent1', 'Yours: `read_string()` in src/lexer.rs'])).toEqual([
      { kind: 'untouched_symbol', names: ['read_string'], files: ['src/lexer.rs'] },
    ]);
  });
});

describe('commitments: a pronoun for code the sender took on earlier in the sentence', () => {
  const wordings = ["I've got `Put()`; I'll add it above Get.", "I'm taking `Put()` and I'll add it above Get.", "I'll take `Put()` and add it above `Get()`."];
  const pool = (name: string) =>
    diff('pool/pool.go', 10, 10, [
      '+',
      `+func (p *Pool) ${name}(c *Conn) {`,
      '+\tp.free <- c',
      '+}',
      '+',
      ' func (p *Pool) Get() *Conn {',
      ' \treturn <-p.free',
    ]);

  it.each(wordings)('promises that code, broken when it is missing and kept when it is there: %s', async (wording) => {
    await brokenThenKept(wording, pool('Push'), pool('Put'));
  });

  it('reads nothing when the earlier code is not the sender’s work', () => {
    expect(targets(['agent1', '`fetch_json()` returns a dict, so I’ll add it to the cache.'])).toEqual([]);
  });
});

describe('commitments: an export through a whole-module re-export', () => {
  const cases = [
    {
      wording: '`formatPercent` is in src/percent.ts and exported from src/index.ts.',
      module: (source: string) => diff('src/index.ts', 1, 1, [" export { version } from './version';", `+export * from './${source}';`]),
      definition: (exported: boolean) =>
        newFile('src/percent.ts', [`${exported ? 'export ' : ''}function formatPercent(x: number): string {`, '  return `${x}%`;', '}']),
    },
    {
      wording: '`load_profile` is in profiles/loader.py and exported from profiles/__init__.py.',
      module: (source: string) => diff('profiles/__init__.py', 1, 1, [' from .version import VERSION', `+from .${source} import *`]),
      definition: (exported: boolean) => newFile('profiles/loader.py', [`def ${exported ? '' : '_'}load_profile(path):`, '    return open(path).read()']),
    },
    {
      wording: '`parse_duration` is in src/duration.rs and exported from src/lib.rs.',
      module: (source: string) => diff('src/lib.rs', 1, 1, [' mod duration;', `+pub use crate::${source}::*;`]),
      definition: (exported: boolean) =>
        newFile('src/duration.rs', [`${exported ? 'pub ' : ''}fn parse_duration(s: &str) -> u64 {`, '    s.len() as u64', '}']),
    },
  ];
  const sourceOf = (c: (typeof cases)[number]) => /`([^`]+)` is in \S+\/(\w+)\./.exec(c.wording)![2]!;

  it.each(cases)('keeps the export when the module re-exports the file whole: $wording', async (c) => {
    const kept = `${c.definition(true)}${c.module(sourceOf(c))}`;
    expect(await judge(input(conversation(['agent1', c.wording]), { agent1: kept }, kept))).toEqual([]);
  });

  it.each(cases)('is broken when the re-exported file does not export it, or another file is re-exported: $wording', async (c) => {
    for (const broken of [`${c.definition(false)}${c.module(sourceOf(c))}`, `${c.definition(true)}${c.module('other')}`]) {
      const labels = await judge(input(conversation(['agent1', c.wording]), { agent1: broken }, broken));
      expect(labels.map((l) => l.messageId)).toEqual([1]);
    }
  });
});

describe('commitments: what a module exports, by its language’s rules', () => {
  /** Python: a shown `__all__` alone says what the module exports. */
  const loader = (all: string | undefined) =>
    newFile('profiles/loader.py', [
      ...(all === undefined ? [] : [`__all__ = [${all}]`, '']),
      'def load_config(path):',
      '    return {}',
      '',
      'def load_profile(path):',
      '    return {}',
    ]);
  /** Rust: `pub(crate)` keeps the item inside the crate. */
  const lib = (visibility: string) =>
    diff('src/lib.rs', 1, 1, [' mod token;', '+', `+${visibility} fn parse_duration(s: &str) -> u64 {`, '+    s.len() as u64', '+}']);
  const python = [
    '`load_profile` is done and exported from profiles/loader.py.',
    "I'll add `load_profile()` to profiles/loader.py and export it.",
    '- `load_profile` in profiles/loader.py, exported from profiles/loader.py',
  ];
  const rust = [
    '`parse_duration` is in and exported from src/lib.rs.',
    "I'll add a public `parse_duration()` to src/lib.rs.",
    '`parse_duration` is now importable from src/lib.rs.',
  ];
  const rows: [wording: string, lost: string, kept: string][] = [
    ...python.map((w): [string, string, string] => [w, loader('"load_config"'), loader('"load_config", "load_profile"')]),
    ...rust.map((w): [string, string, string] => [w, lib('pub(crate)'), lib('pub')]),
  ];

  it.each(rows)(
    'is broken when the module does not export the name (left out of `__all__`, `pub(crate)`), kept when it does: %s',
    async (wording, lost, kept) => {
      await brokenThenKept(wording, lost, kept);
    },
  );

  it.each([['__all__ += ["load_profile"]'], ['__all__.append("load_profile")'], ['__all__.extend(["load_profile"])']])(
    'a shown `__all__` extended below (%s) exports what it adds',
    async (extension) => {
      const [lost, kept] = [[], [extension]].map((more) =>
        newFile('profiles/loader.py', [
          '__all__ = ["load_config"]',
          ...more,
          '',
          'def load_config(path):',
          '    return {}',
          '',
          'def load_profile(path):',
          '    return {}',
        ]),
      );
      await brokenThenKept(python[0]!, lost!, kept!);
    },
  );

  it.each(python)('keeps a top-level Python function of a module with no `__all__`: %s', async (wording) => {
    const unlisted = loader(undefined);
    expect(await judge(input(conversation(['agent1', wording]), { agent1: unlisted }, unlisted))).toEqual([]);
  });
});

describe('commitments: a code subject joined with a plain noun', () => {
  const wordings = ['`retries` field and builder are in.', '`retries` field and docs are done.', '`retries` field & builder landed.'];
  const options = (field: string) =>
    newFile('src/options.rs', [
      'pub struct Options {',
      '    pub timeout: u64,',
      `    pub ${field}: u32,`,
      '}',
      '',
      'impl Options {',
      `    pub fn with_retries(mut self, n: u32) -> Self {`,
      `        self.${field} = n;`,
      '        self',
      '    }',
      '}',
    ]);

  it.each(wordings)('claims the code exists, broken when it is missing and kept when it is there: %s', async (wording) => {
    await brokenThenKept(wording, options('max_retries'), options('retries'));
  });
});

describe('commitments: a parameter bound by destructuring', () => {
  const promise = conversation(['agent1', 'I’ll add a `maxDepth` option to the `Walker` constructor in lib/walk.js.']);
  const withOptions = (signature: string) =>
    diff('lib/walk.js', 6, 6, ['   class Walker {', `-  constructor(root) {`, `+  ${signature} {`, '     this.root = root;'], '');

  it('finds the option inside an object or array pattern, with a default or renamed', async () => {
    for (const signature of [
      'constructor(root, { maxDepth = Infinity } = {})',
      'constructor(root, { depth: maxDepth })',
      'constructor(root, [maxDepth])',
      'constructor({ root, ...maxDepth })',
    ]) {
      const code = withOptions(signature);
      expect(await judge(input(promise, { agent1: code }, code)), signature).toEqual([]);
    }
  });

  it('still reports the option missing when the pattern binds other names only', async () => {
    const code = withOptions('constructor(root, { depth = Infinity } = {})');
    const [label] = await judge(input(promise, { agent1: code }, code));
    expect(label!.evidence).toContainEqual(
      expect.objectContaining({ kind: 'absence', note: '`constructor` in the merged code (lib/walk.js:7) has no parameter `maxDepth`' }),
    );
  });
});
