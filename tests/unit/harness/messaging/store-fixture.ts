// A real run store in a temp folder with tasks to put messages on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../../../../harness/store/run-store.ts';
import type { Pool } from '../../../../tasks/types.ts';

export interface StoreFixture {
  store: RunStore;
  /** Adds a coop task of these features (one agent each); returns its tasks.id. */
  addTask(features: number[]): number;
  dispose(): void;
}

export function openStoreFixture(): StoreFixture {
  const dir = mkdtempSync(join(tmpdir(), 'coop-bench-bus-'));
  const store = RunStore.open(dir, 'bus', { create: true });
  const pool: Pool = { repo: 'demo_task', taskId: 1, dir: '/nonexistent', features: [], publishedImage: 'demo:task1' };
  return {
    store,
    addTask: (features) => store.ensureTask({ pool, features, setting: 'coop', models: features.map(() => 'noop'), variant: '' }).id,
    dispose() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
