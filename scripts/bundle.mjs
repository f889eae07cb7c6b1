// Bundles the command line's TypeScript sources into dist/ (bin/bundle.js), which bin/coop-bench.js
// runs instead of the sources while they are unchanged. ES modules, one chunk per part the CLI loads
// lazily (a command, a backend, the judges), npm packages left in node_modules. Run by `npm ci` and
// `npm pack` (prepare) and `npm run build`. Argument: the folder to write (default dist/).
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { BUNDLE_DIR, MANIFEST, PROJECT_ROOT, currentBundle, sourcesHash } from '../bin/bundle.js';

const ENTRY = 'harness/cli.ts';
/** This script's own contents: a bundle it made another way is rebuilt. */
const BUILDER = sourcesHash(['scripts/bundle.mjs']);

/**
 * A source's import.meta.url names the source file itself (it finds files beside it: prompts, pool
 * folders, report assets), so each one is rewritten to the source's path relative to the bundle's
 * flat folder: the bundle and the sources move together (a clone, a package).
 */
const sourceUrls = (outdir) => ({
  name: 'source-urls',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, ({ path }) => {
      const text = readFileSync(path, 'utf8');
      const other = text.match(/import\.meta\.(?!url\b)\w+/);
      if (other) throw new Error(`${relative(PROJECT_ROOT, path)} uses ${other[0]}, which the bundle cannot keep: use import.meta.url`);
      const url = `new URL(${JSON.stringify(relative(outdir, path))}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
});

/** Writes the bundle into `outdir` (replaced whole: built beside it, then renamed, so a running CLI never sees half of one). */
export async function bundle(outdir = BUNDLE_DIR) {
  const staging = join(dirname(outdir), `.${relative(dirname(outdir), outdir)}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    const { metafile } = await build({
      absWorkingDir: PROJECT_ROOT,
      entryPoints: [ENTRY],
      outdir: staging,
      entryNames: '[name]',
      chunkNames: '[name]-[hash]',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      sourcemap: true,
      metafile: true,
      logLevel: 'warning',
      plugins: [sourceUrls(outdir)],
    });
    const inputs = Object.keys(metafile.inputs).sort();
    writeFileSync(join(staging, MANIFEST), `${JSON.stringify({ entry: 'cli.js', inputs, hash: sourcesHash(inputs), builder: BUILDER }, null, 2)}\n`);
    rmSync(outdir, { recursive: true, force: true });
    renameSync(staging, outdir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Whether `outdir` holds a bundle of the sources as they are, made by this script as it is. */
function upToDate(outdir) {
  if (!currentBundle(outdir)) return false;
  return JSON.parse(readFileSync(join(outdir, MANIFEST), 'utf8')).builder === BUILDER;
}

// Run as a script: a bundle already up to date is kept (a CLI running from it keeps its chunks).
if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const outdir = resolve(process.argv[2] ?? BUNDLE_DIR);
  if (!upToDate(outdir)) await bundle(outdir);
}
