// Where the project's own files are, whatever the current directory.
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SHIPPED_POOLS = fileURLToPath(new URL('../feature-pools', import.meta.url));
