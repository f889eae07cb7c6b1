#!/usr/bin/env bash
# Builds the coop-bench image (tag: coop-bench) on machines where a plain `docker build .` cannot
# work: no image registry for the Node base (seeded from this machine's Node), or an egress proxy
# that inspects TLS (this machine's extra CA certificates are trusted during the build).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/seed-node-image.sh
cp /usr/local/share/ca-certificates/*.crt docker/extra-ca/ 2>/dev/null || true
trap 'rm -f docker/extra-ca/*.crt' EXIT
docker build -t coop-bench .
