// Stops every process an agent left in its container before the harness takes its patch, so that
// nothing the agent started (a detached job, a process writing into another's output through
// /proc/<pid>/fd) runs while the harness reads the container. Run by `docker exec`, never through
// the exec channel (whose server it stops too); a shell with builtins only in its loops (`read`,
// `kill`), so that it works when the pids limit is exhausted.
// Kept: the engine's init (PID 1), the container's main process (the init's first child: the earliest
// started of its children; orphans the init adopted started later) and this script's own ancestors
// (the exec's bounded run). Every process is stopped at once (`kill -STOP -1`: one signal to all but
// PID 1 and the caller, which the kernel delivers before any of them can fork again), then every
// one not kept is killed, and the kept ones continued; passes follow until none is left.
// Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses): 1 the
// state, 2 the parent, 20 the start time.
export const STOP_PROCESSES = `stat() {
  { read -r s < "/proc/$1/stat"; } 2>/dev/null || return 1
  set -- \${s##*) }
  state=$1 ppid=$2
  shift 19
  start=$1
}
keep=' 1 '
p=$$
while [ "$p" -gt 1 ] 2>/dev/null && stat "$p"; do keep="$keep$p "; p=$ppid; done
main= first=
for d in /proc/[0-9]*; do
  p=\${d#/proc/}
  stat "$p" && [ "$ppid" = 1 ] || continue
  case $keep in *" $p "*) continue ;; esac
  if [ -z "$first" ] || [ "$start" -lt "$first" ]; then first=$start main=$p; fi
done
[ -n "$main" ] || { echo 'no main process' >&2; exit 3; }
keep="$keep$main "
n=0
while :; do
  kill -s STOP -1 2>/dev/null
  left=
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    case $keep in *" $p "*) continue ;; esac
    stat "$p" && case $state in Z|X) false ;; esac && kill -s KILL "$p" 2>/dev/null && left=1
  done
  for p in $keep; do kill -s CONT "$p" 2>/dev/null; done
  [ -n "$left" ] || break
  n=$((n + 1))
  [ "$n" -lt 100 ] || { echo 'processes still running after 100 rounds' >&2; exit 4; }
done`;
