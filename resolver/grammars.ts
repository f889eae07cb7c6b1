// The pools' languages (Python, JavaScript, TypeScript, Go, Rust): which a file is in, and their
// tree-sitter grammars, from the grammars' own npm packages (.wasm files shipped in them, loaded from
// node_modules: no network).
import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';

export type CodeLanguage = 'python' | 'javascript' | 'typescript' | 'tsx' | 'go' | 'rust';

const EXTENSIONS: Record<string, CodeLanguage> = {
  py: 'python',
  pyi: 'python',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  go: 'go',
  rs: 'rust',
};

const GRAMMAR_FILES: Record<CodeLanguage, string> = {
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-typescript/tree-sitter-tsx.wasm',
  go: 'tree-sitter-go/tree-sitter-go.wasm',
  rust: 'tree-sitter-rust/tree-sitter-rust.wasm',
};

export function languageOf(path: string): CodeLanguage | undefined {
  const extension = /\.([A-Za-z]+)$/.exec(path)?.[1]?.toLowerCase();
  return extension ? EXTENSIONS[extension] : undefined;
}

let initialised: Promise<void> | undefined;
const languages = new Map<CodeLanguage, Promise<Language>>();
const loaded = new Map<CodeLanguage, Parser>();

/** The parser of a language whose grammar is loaded. */
export const parserOf = (language: CodeLanguage): Parser | undefined => loaded.get(language);

/** Loads the grammars of these languages (each once). Parsing a language not loaded returns undefined. */
export async function loadGrammars(wanted: Iterable<CodeLanguage>): Promise<void> {
  initialised ??= Parser.init();
  await initialised;
  const require = createRequire(import.meta.url);
  await Promise.all(
    [...new Set(wanted)].map(async (language) => {
      if (loaded.has(language)) return;
      let pending = languages.get(language);
      if (!pending) languages.set(language, (pending = Language.load(require.resolve(GRAMMAR_FILES[language]))));
      const parser = new Parser();
      parser.setLanguage(await pending);
      loaded.set(language, parser);
    }),
  );
}

/** The grammar family whose node types a language shares. */
export const family = (language: CodeLanguage) => (language === 'python' ? 'python' : language === 'go' ? 'go' : language === 'rust' ? 'rust' : 'js');
