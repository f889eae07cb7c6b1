// Runs inside an agent's container (no network): listens on 127.0.0.1:<port> (the container's own
// loopback), pipes each connection to the harness's model endpoint on api.sock next to this file (a
// bind mount from the host), and runs the agent CLI given after the port; exits with its status.
// Plain Node (>= 12), no dependencies: it uses only what the container's own node provides.
import { connect, createServer } from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { constants } from 'node:os';

const socketPath = fileURLToPath(new URL('api.sock', import.meta.url));
const [port, command, ...args] = process.argv.slice(2);

const server = createServer((client) => {
  const host = connect(socketPath);
  client.pipe(host);
  host.pipe(client);
  client.on('error', () => host.destroy());
  host.on('error', () => client.destroy());
});
server.on('error', (error) => {
  process.stderr.write(`coop-bench model relay: cannot listen on 127.0.0.1:${port}: ${error.message}\n`);
  process.exit(1);
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('error', (error) => {
    process.stderr.write(`coop-bench model relay: cannot run ${command}: ${error.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code === null ? 128 + (constants.signals[signal] || 0) : code));
});
