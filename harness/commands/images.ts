// `coop-bench images push --registry R`: the pools' images where a cluster can pull them. They are
// found or built with the local Docker engine (the backend that builds), tagged R/<content-hashed
// name> and pushed; a run with `--backend kubernetes --registry R` then uses exactly those names.
import { Command } from 'commander';
import { discoverPools } from '../../tasks/pools.ts';
import { UserError } from '../errors.ts';
import { SHIPPED_POOLS } from '../paths.ts';
import { createBackend, DEFAULT_BACKEND } from '../sandbox/registry.ts';
import { list } from './options.ts';

function pushCommand(): Command {
  return new Command('push')
    .description("build (or find) the pools' images with the local Docker engine, tag them <registry>/<name> and push them")
    .requiredOption(
      '--registry <host/path>',
      'registry (and path) to push to, as `docker push` names it; log in with `docker login` first (credential helpers and stores are used as docker does)',
    )
    .option(
      '--platform <os/arch>',
      "build for the cluster nodes' platform (e.g. linux/arm64) rather than the engine's; the engine must be able to build it (buildx, QEMU)",
    )
    .option('--pools <dir>', 'dataset folder in the CooperBench layout', SHIPPED_POOLS)
    .option('--pool <names>', 'only these pools (repo folder names, e.g. argkit_task)', list)
    .action(async (o: { registry: string; platform?: string; pools: string; pool?: string[] }) => {
      const pools = discoverPools(o.pools).filter((pool) => !o.pool || o.pool.includes(pool.repo));
      if (pools.length === 0) throw new UserError(`no pool${o.pool ? ` named ${o.pool.join(', ')}` : ''} under ${o.pools}`);
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const builder = await createBackend(DEFAULT_BACKEND, { log });
      if (!builder.pushImages) throw new UserError(`the ${builder.name} backend cannot push images`);
      await builder.prepareRun('images-push', pools);
      const pushed = await builder.pushImages(pools, o.registry, log, o.platform);
      for (const image of pushed) process.stdout.write(`${image.pool}  ${image.name}${image.pushed ? '' : '  (published by CooperBench, not pushed)'}\n`);
      process.stdout.write(`${pushed.filter((i) => i.pushed).length} image(s) pushed; run with --backend kubernetes --registry ${o.registry}\n`);
    });
}

export function imagesCommand(): Command {
  return new Command('images').description('pool images for backends that cannot build them (a Kubernetes cluster)').addCommand(pushCommand());
}
