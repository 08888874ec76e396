"""A TCP proxy on loopback that a test can cut and restore: the network between a client and
the real server failing, without touching the server."""

from __future__ import annotations

import contextlib
import socket
import threading


class CuttableProxy:
    """Forwards ``127.0.0.1:port`` to ``127.0.0.1:target_port``. ``cut()`` drops every open
    connection and refuses new ones (each is closed at once) until ``restore()``."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._up = threading.Event()
        self._up.set()
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            if not self._up.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        for sock in (src, dst):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def cut(self) -> None:
        self._up.clear()
        with self._lock:
            sockets, self._open = self._open, []
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the pumps; they close the pair
            sock.close()

    def restore(self) -> None:
        self._up.set()

    def close(self) -> None:
        self.cut()
        self._listener.close()
