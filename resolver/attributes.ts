// Where git reads attributes during a merge and a diff. Upstream runs `git merge` in a checkout of
// the side it merges into, so that tree's .gitattributes files apply (in every folder), and before
// its union merge it appends `* merge=union` to the root one. Here a folder holding only those
// files stands in for the checkout (git reads attributes from the work tree).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GitScratch } from './git.ts';

/** What upstream appends to .gitattributes, byte for byte (`echo "* merge=union" >> .gitattributes`). */
export const UNION_LINE = '* merge=union\n';
export const ROOT_ATTRIBUTES = '.gitattributes';

export const isAttributesPath = (file: string): boolean => file === ROOT_ATTRIBUTES || file.endsWith(`/${ROOT_ATTRIBUTES}`);
// Git does not follow a .gitattributes that is a symbolic link: only regular files count.
const isRegularFile = (mode: string): boolean => mode === '100644' || mode === '100755';

// The .gitattributes files of base trees already listed (a run merges many pairs on one base).
const baseListings = new Map<string, Promise<Map<string, string>>>();
const MAX_LISTINGS = 64;

function baseListing(scratch: GitScratch, baseTree: string): Promise<Map<string, string>> {
  const key = `${scratch.gitDir}\0${baseTree}`;
  let listing = baseListings.get(key);
  if (!listing) {
    listing = scratch
      .listTree(baseTree)
      .then((entries) => new Map(entries.filter((e) => isAttributesPath(e.path) && isRegularFile(e.mode)).map((e) => [e.path, e.sha])));
    listing.catch(() => baseListings.delete(key));
    if (baseListings.size >= MAX_LISTINGS) baseListings.delete(baseListings.keys().next().value!);
    baseListings.set(key, listing);
  }
  return listing;
}

/** Attribute folders of the trees of one merge. */
export class AttributeFolders {
  private readonly folders = new Map<string, Promise<string>>();

  /** `patchesTouchAttributes` false: every tree of the merge has the base's .gitattributes files. */
  constructor(
    private readonly scratch: GitScratch,
    private readonly baseTree: string,
    private readonly patchesTouchAttributes: boolean,
  ) {}

  /** The .gitattributes files of `tree`: path -> blob. */
  async filesOf(tree: string): Promise<Map<string, string>> {
    const files = new Map(await baseListing(this.scratch, this.baseTree));
    if (!this.patchesTouchAttributes || tree === this.baseTree) return files;
    for (const change of (await this.scratch.changes(this.baseTree, tree)).values()) {
      if (!isAttributesPath(change.path)) continue;
      if (isRegularFile(change.newMode)) files.set(change.path, change.newSha);
      else files.delete(change.path);
    }
    return files;
  }

  /** A folder holding `tree`'s .gitattributes files, with upstream's union line appended to the root one when `union`. */
  async folderFor(tree: string, union: boolean): Promise<string> {
    const files = await this.filesOf(tree);
    const key = `${union}\0${[...files].sort().join('\0')}`;
    let folder = this.folders.get(key);
    if (!folder) {
      folder = this.write(files, union);
      this.folders.set(key, folder);
    }
    return folder;
  }

  private async write(files: Map<string, string>, union: boolean): Promise<string> {
    const dir = this.scratch.newPath('attributes');
    await mkdir(dir);
    const blobs = await this.scratch.readBlobs([...files.values()]);
    const contents = new Map([...files].map(([file, sha]) => [file, blobs.get(sha)!]));
    if (union) contents.set(ROOT_ATTRIBUTES, Buffer.concat([contents.get(ROOT_ATTRIBUTES) ?? Buffer.alloc(0), Buffer.from(UNION_LINE)]));
    for (const [file, content] of contents) {
      const target = path.resolve(dir, file);
      // Tree paths never climb out, but this folder is written from repository data: check anyway.
      if (!target.startsWith(dir + path.sep) || file.split('/').some((part) => part === '' || part === '.' || part === '..')) continue;
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
    }
    return dir;
  }
}
