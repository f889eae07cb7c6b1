// Runs inside an agent's container (no network): an MCP stdio server for the agent CLI, piped to
// the coop-bench MCP server listening on mcp.sock next to this file (a bind mount from the host).
// Plain Node (>= 12), no dependencies: it uses only what the container's own node provides.
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

const socketPath = fileURLToPath(new URL('mcp.sock', import.meta.url));
const socket = connect(socketPath);

socket.on('connect', () => {
  process.stdin.pipe(socket);
  socket.pipe(process.stdout);
});
socket.on('error', (error) => {
  process.stderr.write(`coop-bench MCP bridge: cannot reach ${socketPath}: ${error.message}\n`);
  process.exit(1);
});
// The host closed the connection (end of the task): nothing more will come.
socket.on('close', () => process.exit(0));
