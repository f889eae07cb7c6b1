# Runs inside an agent's container (no network) when it has python3 but no node: an MCP stdio
# server for the agent CLI, piped to the coop-bench MCP server listening on mcp.sock next to this
# file (a bind mount from the host). Standard library only.
import os
import socket
import sys
import threading

SOCKET_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp.sock")


def client_to_host(sock):
    stdin = sys.stdin.buffer
    while True:
        chunk = stdin.read1(65536)
        if not chunk:
            break
        sock.sendall(chunk)
    sock.shutdown(socket.SHUT_WR)


def main():
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(SOCKET_PATH)
    except OSError as error:
        sys.stderr.write("coop-bench MCP bridge: cannot reach %s: %s\n" % (SOCKET_PATH, error))
        return 1
    threading.Thread(target=client_to_host, args=(sock,), daemon=True).start()
    stdout = sys.stdout.buffer
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return 0
        stdout.write(chunk)
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
