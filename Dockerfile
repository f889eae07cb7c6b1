# coop-bench itself, driving the host's Docker engine through the mounted socket:
#
#   docker build -t coop-bench .
#   docker run --rm -v /var/run/docker.sock:/var/run/docker.sock \
#     -v "$PWD/runs:/coop-bench/runs" -v /tmp/coop-bench:/tmp/coop-bench coop-bench run --models oracle
#
# /tmp/coop-bench is mounted at the same path because containers coop-bench starts bind-mount
# folders it creates there (--git remotes, MCP endpoints): the host engine must see them.
# Machines without an image registry, or behind a TLS-inspecting proxy: scripts/build-image.sh.
#
# The image holds what runs: the files of the npm package ("files" in package.json) and the
# production packages of the lockfile. Not the dev packages, not node-llama-cpp (an optional peer
# dependency; --resolver-url serves a resolver from another container), not the compiler that
# better-sqlite3 may need. tsx stays: coop-bench runs its TypeScript sources as they are.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# python3, make and g++ build better-sqlite3 when no prebuilt binary fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY docker/extra-ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
WORKDIR /src
# Native addons build against the headers of the Node in the image, never downloaded ones.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --cafile /etc/ssl/certs/ca-certificates.crt
COPY . .
RUN mkdir /coop-bench \
 && npm pack --pack-destination /tmp >/dev/null \
 && tar -xzf /tmp/coop-bench-*.tgz -C /coop-bench --strip-components=1 \
 && mv node_modules /coop-bench/

FROM ${NODE_IMAGE}
# git and tar for merges and base repositories on the host side.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /coop-bench /coop-bench
WORKDIR /coop-bench
ENV TMPDIR=/tmp/coop-bench
ENTRYPOINT ["node", "bin/coop-bench.js"]
