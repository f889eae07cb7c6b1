#!/usr/bin/env bash
# Makes a Docker engine usable on a Debian machine that has none: installs docker.io if missing,
# starts dockerd if it is not running, and seeds debian:bookworm-slim with debootstrap when absent
# (there is no image registry to pull it from), from the Debian archive and through the proxy that
# this machine's apt uses (DEBIAN_MIRROR overrides the archive). Safe to run again: each step is
# skipped when done.
set -euo pipefail

BASE_IMAGE=debian:bookworm-slim
log() { echo "setup-docker: $*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! docker info >/dev/null 2>&1; then
  if ! command -v dockerd >/dev/null 2>&1; then
    log "installing docker.io"
    apt_install docker.io
  fi
  if ! docker info >/dev/null 2>&1; then
    log "starting dockerd (log: /var/log/dockerd.log)"
    # Its own session: a caller's process group being signalled (a job killed, a CI step ended) must not stop it.
    as_root sh -c 'setsid nohup dockerd >/var/log/dockerd.log 2>&1 </dev/null &'
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    if ! docker info >/dev/null 2>&1; then
      log "dockerd did not come up; last lines of /var/log/dockerd.log:"
      as_root tail -n 20 /var/log/dockerd.log >&2 || true
      exit 1
    fi
  fi
fi

if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  command -v debootstrap >/dev/null 2>&1 || { log "installing debootstrap"; apt_install debootstrap; }
  mirror=${DEBIAN_MIRROR:-$(bash "$(dirname "$0")/debian-mirror.sh" bookworm)}
  # debootstrap downloads with wget: through apt's proxy, where apt has one.
  eval "$(apt-config shell apt_http_proxy Acquire::http::Proxy apt_https_proxy Acquire::https::Proxy)"
  proxy_env=()
  case ${apt_http_proxy:-} in http://* | https://*) proxy_env+=("http_proxy=$apt_http_proxy") ;; esac
  case ${apt_https_proxy:-} in http://* | https://*) proxy_env+=("https_proxy=$apt_https_proxy") ;; esac
  rootfs=$(mktemp -d)
  trap 'as_root rm -rf "$rootfs"' EXIT
  log "seeding $BASE_IMAGE from $mirror with debootstrap (about a minute)"
  as_root env "${proxy_env[@]}" debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null
  # As the official slim image: apt keeps no package cache, dpkg installs no docs.
  as_root sh -c "cat > '$rootfs/etc/apt/apt.conf.d/docker-clean'" <<'CONF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
CONF
  as_root sh -c "cat > '$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim'" <<'CONF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
CONF
  as_root sh -c "rm -rf '$rootfs'/var/lib/apt/lists/* '$rootfs'/var/cache/apt/*.bin '$rootfs'/var/cache/apt/archives/*.deb"
  as_root tar -C "$rootfs" -c . | docker import - "$BASE_IMAGE" >/dev/null
  log "seeded $BASE_IMAGE"
fi
