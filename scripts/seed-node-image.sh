#!/usr/bin/env bash
# For machines without an image registry: makes node:20-bookworm-slim (the base of the coop-bench
# Dockerfile) from the seeded debian:bookworm-slim and this machine's own Node.js 20 and npm.
set -euo pipefail
IMAGE=node:20-bookworm-slim
docker image inspect "$IMAGE" >/dev/null 2>&1 && { echo "$IMAGE is present" >&2; exit 0; }
node_bin=$(command -v node)
case "$(node --version)" in v20.*) ;; *) echo "seed-node-image: needs Node.js 20 on this machine (found $(node --version))" >&2; exit 1 ;; esac
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$node_bin" "$context/node"
cp -r "$npm_dir" "$context/npm"
# Node's C headers, for native addons (better-sqlite3) built without downloading them.
cp -r "$(dirname "$(dirname "$node_bin")")/include/node" "$context/include"
cat > "$context/Dockerfile" <<'DOCKERFILE'
FROM debian:bookworm-slim
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY include /usr/local/include/node
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
DOCKERFILE
docker build -q -t "$IMAGE" "$context" >/dev/null
echo "built $IMAGE from $node_bin ($(node --version))" >&2
