# coop-bench itself, driving the host's Docker engine through the mounted socket:
#
#   docker build -t coop-bench .
#   docker run --rm -v /var/run/docker.sock:/var/run/docker.sock \
#     -v "$PWD/runs:/coop-bench/runs" -v /tmp/coop-bench:/tmp/coop-bench coop-bench run --models oracle
#
# /tmp/coop-bench is mounted at the same path because containers coop-bench starts bind-mount
# folders it creates there (--git remotes, MCP endpoints): the host engine must see them.
# Machines without an image registry, or behind a TLS-inspecting proxy: scripts/build-image.sh.
ARG NODE_IMAGE=node:20-bookworm-slim
FROM ${NODE_IMAGE}
# git for merges on the host side; python3, make and g++ build better-sqlite3 when no prebuilt binary fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY docker/extra-ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
WORKDIR /coop-bench
# Native addons build against the headers of the Node in the image, never downloaded ones.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
# Optional packages stay: esbuild's platform binary (tsx) is one. `npm install` keeps the locked
# versions (see scripts/ensure-deps.sh for why not `npm ci`).
RUN npm install --omit=dev --no-audit --no-fund --cafile /etc/ssl/certs/ca-certificates.crt \
 && npm cache clean --force
COPY bin bin
COPY harness harness
COPY tasks tasks
COPY resolver resolver
COPY judges judges
COPY reports reports
COPY feature-pools feature-pools
ENV TMPDIR=/tmp/coop-bench
ENTRYPOINT ["node", "bin/coop-bench.js"]
