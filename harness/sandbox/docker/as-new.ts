// Whether a test container that ran tests is as new, so that another task of the run may take it
// (warm-tests.ts): what a fresh container of the same image would give the next task's tests. Shell
// run inside the container by its serving shell (test-run.ts), which snapshots at its start what it
// compares here and defines $base, $head, $since and reset_repository (CooperBench's reset); the
// snapshots stay in that shell's memory, out of the tests' reach. `check` prints one word, the
// reason the container is not as new, and fails; or prints nothing and succeeds, with the
// repository as a fresh container has it.
// - process: anything running but the engine's init (PID 1) and the serving shell (all are killed);
// - volume: a mount other than those the engine makes in every container (a VOLUME of the image
//   keeps what the tests wrote in it);
// - repository: after CooperBench's reset (stale locks, checkout --force, reset --hard, clean -fdx
//   to the base commit) and HEAD back on its branch, other refs or HEAD, anything untracked or
//   ignored (a nested repository `clean -fdx` skips), or a tracked file that differs;
// - devices, ipc, etc, folders: /dev with /dev/shm and /dev/mqueue, System V IPC, the files the
//   engine writes (/etc/hosts, hostname, resolv.conf), the entries of /, of the repository's parent
//   and of /tmp (pytest's tmp_path folders, /tmp/pytest-of-*, removed first): anything different
//   from the snapshot;
// - pyc, files: a file or folder of the root file system changed since the start (ctime), other
//   than the repository's (checked above, but for .git/config, hooks and info), the patches the
//   requests write, and the folders whose entries are compared above; pyc when any is compiled
//   Python (a stale .pyc changes what an import loads). On an overlayfs root (Docker's overlay2,
//   containerd's overlayfs) a change anywhere copies the directories above it up into the
//   container's layer, which is empty at the start, so they have a ctime after it; the walk skips
//   every directory without one (60-100 ms of a check's ~120 ms visited all ~11,000 entries of the
//   benchmark's image; docs/performance.md). Any other root file system is walked whole.
// Nothing the engine is asked for (`docker diff` costs the engine ~0.9 s of CPU per container).

/** The reasons CHECK prints. */
export const CHECK_REASONS = ['process', 'volume', 'repository', 'devices', 'ipc', 'etc', 'folders', 'pyc', 'files'] as const;

/**
 * Why a container is not taken again: CHECK's reasons; `stopped`: a run stopped it (time limit, out
 * of memory) or it stopped while waiting; `check failed`: the check did not answer as it does.
 */
export type RetireReason = (typeof CHECK_REASONS)[number] | 'stopped' | 'check failed';

/** Shell functions for the serving shell: `state PART`, `snapshot`, `check` (see above). */
export const CHECK = `parts='repository devices ipc etc folders'
state() {
  case $1 in
    repository) git for-each-ref --format='%(refname) %(objectname)'; git symbolic-ref -q HEAD; git rev-parse HEAD ;;
    devices) ls -lAR --full-time /dev ;;
    ipc) cat /proc/sysvipc/shm /proc/sysvipc/sem /proc/sysvipc/msg ;;
    etc) cksum /etc/hosts /etc/hostname /etc/resolv.conf; stat -c '%n %f %u %g %Y' /etc/hosts /etc/hostname /etc/resolv.conf ;;
    folders) ls -A / "\${PWD%/*}" /tmp; stat -c '%n %f %u %g' / "\${PWD%/*}" /tmp "$PWD" ;;
  esac 2>&1
}
snapshot() {
  root_fs=$(awk '$5 == "/" { for (i = 7; i < NF; i++) if ($i == "-") fs = $(i + 1) } END { print fs }' /proc/self/mountinfo 2>/dev/null)
  for part in $parts; do eval "fresh_$part=\\$(state $part)"; done
}
check() {
  for pid in /proc/[0-9]*; do
    case \${pid#/proc/} in 1|$$) ;; *) kill -9 -1 2>/dev/null; echo process; return 1 ;; esac
  done
  if cut -d' ' -f5 /proc/self/mountinfo | grep -qvxE '/|/(proc|sys|dev)(/.*)?|/etc/(hosts|hostname|resolv\\.conf)|(/usr)?/sbin/docker-init'; then
    echo volume; return 1
  fi
  if ! { reset_repository && { [ -z "$head" ] || git symbolic-ref HEAD "$head"; } && git update-index -q --really-refresh; } >/dev/null 2>&1 ||
    [ -n "$(git status --porcelain --ignored --untracked-files=all 2>&1)" ]; then
    echo repository; return 1
  fi
  # pytest's base folder for tmp_path, which it keeps across runs: a fresh container has none.
  rm -rf /tmp/pytest-of-*
  for part in $parts; do
    eval "[ \\"\\$fresh_$part\\" = \\"\\$(state $part)\\" ]" || { echo "$part"; return 1; }
  done
  set -- -newerct "$since" -print
  [ "$root_fs" != overlay ] || set -- \\( -type d ! -newerct "$since" ! -path / -prune \\) -o "$@"
  changed=$(find / -xdev "$@" 2>&1) || { echo files; return 1; }
  reason=$(printf '%s\\n' "$changed" | while IFS= read -r path; do
    case $path in
      ''|/|"\${PWD%/*}"|/tmp|/patches|/patches/tests.patch|/patches/patch.patch) ;;
      "$PWD/.git/config"|"$PWD/.git/hooks"*|"$PWD/.git/info"*) echo files ;;
      "$PWD"|"$PWD"/*) ;;
      *.pyc|*/__pycache__|*/__pycache__/*) echo pyc ;;
      *) echo files ;;
    esac
  done | sort -r | head -n 1)
  [ -z "$reason" ] || { echo "$reason"; return 1; }
}`;
