// The server end of the exec channel: a bash script (pool images guarantee bash and coreutils, not
// node or python), started with an agent container beside its main process (MAIN_PROCESS below) or,
// when that one is gone or busy, by a `docker exec`, and kept for the container's life.
//
// Requests arrive on its stdin, one at a time, as lines: an id, the user to run as (`uid:gid`, the
// agent's: agent-user.ts; empty: the server's own, root), the working folder (empty: the
// container's), the number of environment entries and each `NAME=value`, the number of arguments
// and each argument. Every field is one line with each byte outside [A-Za-z0-9 ._/=:,+-] written
// as \xHH, decoded by bash's own printf (no process per field). Arguments are the bounded run's
// full argv (bounded-run.ts): the channel adds no process discipline of its own.
//
// For each request it runs the command in a subshell with stdin from /dev/null, its stdout through
// `base64 -w 0` to the server's stdout and its stderr through `base64 -w 0` to the server's stderr,
// each followed by "\n!<id> <exit status>\n" (stderr: "\n!<id>\n") once the encoder has seen the end
// of its stream. Base64 carries any bytes and can never contain a marker, so a command cannot
// forge the end of its own output. The server and its encoders run as root and an agent's commands
// as the agent user (coreutils' `chroot --userspec ... --skip-chdir /`: a change of user, not of
// root), so no agent process may open /proc/<server>/fd or signal them. Anything else the server might print (bash's own warnings) goes
// to /dev/null, so the two streams hold only payloads and markers.
//
// "!ready" (an empty payload, then the marker) says it started; when base64 or a chroot that changes
// users is missing it answers "!unavailable" instead, at start (base64 also for a request: an agent
// may delete it), and runs nothing: the harness then uses `docker exec` for that command (the engine
// changes the user), which is then run exactly once.

export const EXEC_CHANNEL_SERVER = `
exec 4>&2 2>/dev/null
if [ "$SHLVL" = 1 ]; then unset SHLVL; else export SHLVL=$((SHLVL - 1)); fi
b64=$(command -v base64)
if [ -z "$b64" ]; then printf '\\n!unavailable base64\\n'; exit 0; fi
chroot=$(command -v chroot)
if [ -z "$chroot" ] || ! "$chroot" --userspec=0:0 --skip-chdir / true; then printf '\\n!unavailable chroot --userspec\\n'; exit 0; fi
home=$PWD
printf '\\n!ready\\n'
field() { IFS= read -r line || exit 0; printf -v "$1" '%b' "$line"; }
while IFS= read -r id; do
  field user
  field cwd
  field n
  envs=()
  for ((i = 0; i < n; i++)); do field entry; envs+=("$entry"); done
  field n
  args=()
  for ((i = 0; i < n; i++)); do field entry; args+=("$entry"); done
  if [ ! -x "$b64" ]; then
    printf '\\n!%s unavailable\\n' "$id"
    printf '\\n!%s\\n' "$id" >&4
    continue
  fi
  {
    (
      cd -- "\${cwd:-$home}" || exit 126
      if [ "\${#envs[@]}" -gt 0 ]; then export "\${envs[@]}"; fi
      if [ -n "$user" ]; then exec "$chroot" --userspec="$user" --skip-chdir / "\${args[@]}"; fi
      exec "\${args[@]}"
    ) </dev/null 2>&1 1>&3 3>&- 4>&- | "$b64" -w 0 >&4
    exit "\${PIPESTATUS[0]}"
  } 3>&1 | "$b64" -w 0
  status=\${PIPESTATUS[0]}
  printf '\\n!%s %s\\n' "$id" "$status"
  printf '\\n!%s\\n' "$id" >&4
done
`;

/**
 * An agent container's main process (sandbox.ts): the server on the container's own stdin, so that
 * its first channel costs no `docker exec` (the engine's CPU for one is tens of ms, bench table 5b).
 * The main process itself is `tail -f /dev/null` as in every agent container before (started at
 * once, so an agent deleting binaries cannot stop the container); the server runs beside it on the
 * stdin it was given (fd 3: an asynchronous list reads /dev/null). When the server ends (its input
 * closed, or killed) a builtin printf says "!ended" on both streams: the harness drops the channel,
 * and a command in flight is out of step (it runs again by `docker exec`). Without bash, the
 * greeting says so.
 */
export const MAIN_PROCESS = [
  'sh',
  '-c',
  `exec 3<&0; ( if command -v bash >/dev/null 2>&1; then bash -c "$0" <&3 3<&-; else printf '\\n!unavailable bash\\n'; fi; printf '\\n!ended\\n'; printf '\\n!ended\\n' >&2 ) & exec tail -f /dev/null 3<&-`,
  EXEC_CHANNEL_SERVER,
];
