#!/usr/bin/env bash
# Installs the npm packages, exactly the locked versions (`npm ci`), when they are missing or older
# than the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "coop-bench: installing npm packages" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
