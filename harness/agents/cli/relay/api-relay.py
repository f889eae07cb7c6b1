# Runs inside an agent's container (no network) when it has python3 but no node: listens on
# 127.0.0.1:<port> (the container's own loopback), pipes each connection to the harness's model
# endpoint on api.sock next to this file (a bind mount from the host), and runs the agent CLI
# given after the port; exits with its status. Standard library only.
import os
import socket
import subprocess
import sys
import threading

SOCKET_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api.sock")


def pipe(source, target):
    try:
        while True:
            chunk = source.recv(65536)
            if not chunk:
                break
            target.sendall(chunk)
        target.shutdown(socket.SHUT_WR)
    except OSError:
        source.close()
        target.close()


def relay(client):
    host = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        host.connect(SOCKET_PATH)
    except OSError:
        client.close()
        return
    threading.Thread(target=pipe, args=(client, host), daemon=True).start()
    threading.Thread(target=pipe, args=(host, client), daemon=True).start()


def serve(listener):
    while True:
        client, _ = listener.accept()
        relay(client)


def main():
    port, command = int(sys.argv[1]), sys.argv[2:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", port))
    except OSError as error:
        sys.stderr.write("coop-bench model relay: cannot listen on 127.0.0.1:%d: %s\n" % (port, error))
        return 1
    listener.listen(64)
    threading.Thread(target=serve, args=(listener,), daemon=True).start()
    try:
        status = subprocess.call(command)
        return 128 - status if status < 0 else status
    except OSError as error:
        sys.stderr.write("coop-bench model relay: cannot run %s: %s\n" % (command[0], error))
        return 127


if __name__ == "__main__":
    sys.exit(main())
