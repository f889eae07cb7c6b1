// The prebuilt bundle of the command line's TypeScript sources (dist/, made by scripts/bundle.mjs),
// and whether it was built from the sources as they are now. Compared by content, not by time: a
// checkout that changes nothing, or a package unpacked with other times, keeps it current.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BUNDLE_DIR = join(PROJECT_ROOT, 'dist');
/** dist/'s record of what it was built from: { entry, inputs (paths from the root), hash }. */
export const MANIFEST = 'manifest.json';

/** One hash of the named files' contents (paths from `root`), in order. */
export function sourcesHash(inputs, root = PROJECT_ROOT) {
  const hash = createHash('sha256');
  for (const input of inputs)
    hash
      .update(`${input}\0`)
      .update(readFileSync(join(root, input)))
      .update('\0');
  return hash.digest('hex');
}

/** The URL of the bundle's entry when `dir` holds a bundle of the sources under `root` as they are now; else undefined. */
export function currentBundle(dir = BUNDLE_DIR, root = PROJECT_ROOT) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
    if (sourcesHash(manifest.inputs, root) !== manifest.hash) return undefined;
  } catch {
    // No bundle (not built), or a source it was built from is gone: the sources run.
    return undefined;
  }
  return pathToFileURL(join(dir, manifest.entry)).href;
}
