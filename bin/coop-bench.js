#!/usr/bin/env node
// Runs the prebuilt bundle (dist/, made by `npm ci`, `npm pack` or `npm run build`) while it matches
// the sources: it starts without a transpiling loader, in about half the CPU. Otherwise it runs the
// TypeScript sources directly through tsx: an edit runs at once, without a build step.
import { currentBundle } from './bundle.js';

const bundle = currentBundle();
let cli;
if (bundle) {
  cli = await import(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../harness/cli.ts');
}
await cli.main(process.argv);
