#!/bin/sh
# The command in mcp.json: runs the bridge with whichever runtime the container has.
dir=$(dirname "$0")
if command -v node >/dev/null 2>&1; then
  exec node "$dir/mcp-bridge.mjs"
elif command -v python3 >/dev/null 2>&1; then
  exec python3 "$dir/mcp-bridge.py"
fi
echo "coop-bench MCP bridge: this container has neither node nor python3" >&2
exit 127
