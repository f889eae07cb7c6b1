#!/usr/bin/env bash
# The whole test suite on a fresh machine: npm packages, a Docker engine, type check, then vitest
# (unit tests, and integration tests against the real engine).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
# The suite's duration is printed however it ends (CI logs show where the time went).
trap 'echo "npm test: $((SECONDS - started)) s" >&2' EXIT
bash scripts/ensure-deps.sh
bash scripts/setup-docker.sh
[ -x /usr/bin/chromium ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium </dev/null >&2; }  # report browser tests
npx tsc --noEmit
npx vitest run "$@"
