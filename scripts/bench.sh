#!/usr/bin/env bash
# The benchmark suite (`npm run bench`): the harness's own overhead against the raw operations, as
# tables on stdout and in bench/results.json. Sets up what the tests set up (npm packages, a Docker
# engine). `npm run bench -- --only steps,eval` runs some of: steps, exec, eval, messages, merge, e2e,
# breakdown, cpu, lifecycle, realistic, first-step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/setup-docker.sh
exec npx tsx bench/index.ts "$@"
