#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx: no build step between an edit and a run.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../harness/cli.ts');
await main(process.argv);
