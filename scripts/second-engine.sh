#!/usr/bin/env bash
# A second Docker engine on this machine, for the tests and benchmarks of runs over several engines:
# its own socket, data root, exec root (and so its own containerd), its own bridge interface and
# no iptables rules (coop-bench's containers use --network none; the first engine's rules stay
# untouched), and debian:bookworm-slim copied from the first engine (there is no registry).
# Not `--bridge none`: a dockerd started so deletes the interface named docker0, which is the
# first engine's bridge, and that engine's builds lose their network.
# With cgroup v1 accounting (/sys/fs/cgroup/cpuacct), the daemon (dockerd, containerd, shims, runc)
# runs in cpuacct group $NAME and its containers under $NAME-containers, so that `npm run bench`
# can tell the CPU the engine spends from the CPU the containers' processes spend.
#   bash scripts/second-engine.sh start   # prints the engine's address
#   bash scripts/second-engine.sh stop
# Root only. Images built on it stay in its data root for the next start.
set -euo pipefail

NAME=${COOP_BENCH_SECOND_ENGINE:-coop-bench-docker2}
SOCK=/var/run/$NAME.sock
PIDFILE=/var/run/$NAME.pid
LOG=/var/log/$NAME.log
BASE_IMAGE=debian:bookworm-slim
BRIDGE=cb2br0
BRIDGE_ADDR=172.31.254.1/24
log() { echo "second-engine: $*" >&2; }
d2() { docker -H "unix://$SOCK" "$@"; }

case "${1:-}" in
  start)
    if ! d2 info >/dev/null 2>&1; then
      [ "$(id -u)" -eq 0 ] || { log "must run as root"; exit 1; }
      log "starting dockerd on $SOCK (log: $LOG)"
      if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
        ip link add "$BRIDGE" type bridge
        ip addr add "$BRIDGE_ADDR" dev "$BRIDGE"
        ip link set "$BRIDGE" up
      fi
      ACCT=/sys/fs/cgroup/cpuacct
      CGROUP_PARENT=()
      if [ -d "$ACCT" ] && mkdir -p "$ACCT/$NAME" "$ACCT/$NAME-containers" 2>/dev/null; then
        CGROUP_PARENT=(--cgroup-parent "/$NAME-containers")
      else
        ACCT=
      fi
      # shellcheck disable=SC2016
      nohup sh -c '[ -z "$1" ] || echo $$ > "$1/tasks"; shift; exec dockerd "$@"' start-engine "${ACCT:+$ACCT/$NAME}" \
        --host "unix://$SOCK" --data-root "/var/lib/$NAME" --exec-root "/var/run/$NAME" --pidfile "$PIDFILE" \
        --bridge "$BRIDGE" --iptables=false --ip-masq=false "${CGROUP_PARENT[@]}" >"$LOG" 2>&1 &
      for _ in $(seq 1 60); do d2 info >/dev/null 2>&1 && break; sleep 0.5; done
      d2 info >/dev/null 2>&1 || { log "dockerd did not come up; last lines of $LOG:"; tail -n 20 "$LOG" >&2; exit 1; }
    fi
    if ! d2 image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
      log "copying $BASE_IMAGE from the first engine"
      docker save "$BASE_IMAGE" | d2 load >/dev/null
    fi
    echo "unix://$SOCK"
    ;;
  stop)
    if [ -f "$PIDFILE" ]; then
      pid=$(cat "$PIDFILE")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      log "stopped"
    fi
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
