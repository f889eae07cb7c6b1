#!/usr/bin/env bash
# Installs the npm packages from the lockfile when they are missing or older than the lockfile.
# `npm install`, not `npm ci`: registries that do not serve every platform package of
# node-llama-cpp (an optional dependency) leave those out of the lockfile, which `npm ci`
# refuses; `npm install` keeps the locked versions and skips the absent optional packages.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "coop-bench: installing npm packages" >&2
  npm install --no-audit --no-fund --loglevel=error >&2
fi
