// A TCP listener on every host address that counts connections: if an agent container ever
// reaches the host, the count says so.
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import type { AddressInfo } from 'node:net';

export interface Canary {
  port: number;
  /** The host's own IPv4 addresses (docker0's gateway among them): where a container would find it. */
  hosts: string[];
  connections(): number;
  close(): Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const hosts = Object.values(networkInterfaces()).flatMap((addresses) => (addresses ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address));
  return {
    port: (server.address() as AddressInfo).port,
    hosts,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
