// The base repository of a pool image, copied once to this machine (per image id, so per engine
// when each engine built its own image): an archive of the repository from a throw-away container.
import { WORKSPACE } from '../../../tasks/prompts.ts';
import { cachedBaseRepo } from '../base-repo-cache.ts';
import { containerLabels } from '../labels.ts';
import { DEFAULT_LIMITS, type BaseRepo } from '../types.ts';
import type { PoolImage } from './images.ts';
import { createContainer, removeContainer } from './sandbox.ts';

export function baseRepo(image: PoolImage, run: string): Promise<BaseRepo> {
  return cachedBaseRepo(image.id, async (staging) => {
    const container = await createContainer(image.engine, { image: image.id, labels: containerLabels(run, 'extract'), limits: DEFAULT_LIMITS });
    try {
      const { execa } = await import('execa');
      const archive = await container.getArchive({ path: WORKSPACE });
      // The archive's top folder is `repo/`.
      const tar = execa('tar', ['-x', '--no-same-owner', '-C', staging]);
      archive.pipe(tar.stdin!);
      await tar;
    } finally {
      await removeContainer(container);
    }
  });
}
