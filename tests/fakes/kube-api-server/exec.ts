// The exec subresource (GET .../pods/{name}/exec, upgraded to a WebSocket) as a real API server
// speaks it, on top of `docker exec`. Rules and their sources:
// - query: `command` repeated, one per argument, at least one ("you must specify at least 1
//   command"); at least one of stdin/stdout/stderr; `container` must name a container of the pod
//   (pkg/registry/core/pod/strategy.go ExecLocation, PodExecOptions validation);
// - a pod whose phase is Succeeded or Failed refuses exec ("cannot exec into a container in a
//   completed pod; current phase is ...", strategy.go); a container not running refuses it too;
// - subprotocols v4.channel.k8s.io and v5.channel.k8s.io: every binary message starts with its
//   channel, 0 stdin, 1 stdout, 2 stderr, 3 error (the final Status as JSON), 4 resize; v5 adds
//   channel 255 to close a stream, [255, 0] closing stdin
//   (k8s.io/apimachinery/pkg/util/remotecommand/constants.go; KEP-4006);
// - once upgraded the server sends one empty message on the lowest writable channel, 1, else 2,
//   else 3 (wsstream: "notify the client the connection is established");
// - the final Status: `{"metadata":{},"status":"Success"}`, or Failure with reason
//   NonZeroExitCode and a cause of reason ExitCode whose message is the code (remotecommand
//   NonZeroExitCodeReason, ExitCodeCauseType); then the connection closes.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import { badRequest, type Status } from './validation.ts';
import { acceptWebSocket, type WebSocketLimits } from './websocket.ts';
import type { PodEntry } from './index.ts';

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const CLOSE = 255;

export interface ExecRequest {
  docker: Docker;
  request: IncomingMessage;
  socket: Socket;
  url: URL;
  pod: PodEntry;
  /** The pod with its current status. */
  status: () => Promise<{ status: { phase: string; containerStatuses: { state: { running?: unknown } }[] } }>;
  protocols: string[];
  limits: WebSocketLimits;
  reject: (status: Status) => void;
}

function exitStatus(command: string[], exitCode: number): object {
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function handleExec(exec: ExecRequest): Promise<void> {
  const { docker, url, pod, reject } = exec;
  const command = url.searchParams.getAll('command');
  const flag = (name: string) => url.searchParams.get(name) === 'true' || url.searchParams.get(name) === '1';
  const [stdin, stdout, stderr, tty] = ['stdin', 'stdout', 'stderr', 'tty'].map(flag);
  const name = pod.object.metadata.name as string;
  const containers = (pod.object.spec.containers as { name: string }[]).map((c) => c.name);
  const container = url.searchParams.get('container') ?? (containers.length === 1 ? containers[0] : undefined);
  if (command.length === 0) return reject(badRequest('you must specify at least 1 command').status);
  if (!stdin && !stdout && !stderr) return reject(badRequest('you must specify at least 1 of stdin, stdout, stderr').status);
  if (!container) return reject(badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`).status);
  if (!containers.includes(container)) return reject(badRequest(`container ${container} is not valid for pod ${name}`).status);
  const current = await exec.status();
  if (current.status.phase === 'Succeeded' || current.status.phase === 'Failed') {
    return reject(badRequest(`cannot exec into a container in a completed pod; current phase is ${current.status.phase}`).status);
  }
  if (!current.status.containerStatuses[0]?.state.running || !pod.containerId) {
    return reject(badRequest(`unable to upgrade connection: container not found ("${container}")`).status);
  }

  const peer = acceptWebSocket(exec.request, exec.socket, exec.protocols, (code, message) => reject({ ...badRequest(message).status, code }), exec.limits);
  if (!peer) return;
  peer.send(Buffer.from([stdout ? STDOUT : stderr ? STDERR : ERROR]));

  const target = docker.getContainer(pod.containerId);
  const process = await target.exec({ Cmd: command, AttachStdin: stdin, AttachStdout: stdout, AttachStderr: stderr, Tty: tty });
  const stream = (await process.start({ hijack: true, stdin })) as Socket;
  const channel = (id: number) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        peer.send(Buffer.concat([Buffer.from([id]), chunk]));
        done();
      },
    });
  docker.modem.demuxStream(stream, channel(STDOUT), channel(STDERR));
  // The command may exit before it read all its input.
  stream.on('error', () => undefined);
  peer.onMessage((message) => {
    if (message.length === 0 || stream.writableEnded || stream.destroyed) return;
    if (message[0] === STDIN && stdin) stream.write(message.subarray(1));
    // Half-close: the command reads end of file; its output still flows.
    else if (message[0] === CLOSE && peer.protocol === 'v5.channel.k8s.io' && message[1] === STDIN) stream.end();
    // Channel 4 (resize) only matters with a tty.
  });
  // The client went away: the command goes on in the container, as under a real kubelet; nobody reads its output.
  peer.onClose(() => stream.destroy());

  let finished = false;
  const finish = async () => {
    if (finished) return;
    finished = true;
    let info = await process.inspect();
    for (let i = 0; info.Running && i < 100; i++) {
      await sleep(20);
      info = await process.inspect();
    }
    peer.send(Buffer.concat([Buffer.from([ERROR]), Buffer.from(JSON.stringify(exitStatus(command, info.ExitCode ?? 137)))]));
    peer.close();
  };
  stream.on('end', () => void finish().catch(() => peer.close(1011)));
  stream.on('close', () => void finish().catch(() => peer.close(1011)));
}
