#!/bin/sh
# `sh api-relay.sh <port> <command...>`: runs <command> (an agent CLI) with the model endpoint
# reachable at http://127.0.0.1:<port>, relayed to api.sock next to this file, with whichever
# runtime the container has. The container itself keeps no network.
dir=$(dirname "$0")
if command -v node >/dev/null 2>&1; then
  exec node "$dir/api-relay.mjs" "$@"
elif command -v python3 >/dev/null 2>&1; then
  exec python3 "$dir/api-relay.py" "$@"
fi
echo "coop-bench model relay: this container has neither node nor python3, so an agent CLI cannot reach its model" >&2
exit 127
