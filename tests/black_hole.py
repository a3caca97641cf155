"""A host that hangs: a TCP listener that passes connections on to a real host until it goes
silent; then it accepts every connection and never answers a byte, and drops what arrives on
the open ones, as a dead backend behind a live address does (or a network that drops packets).
A real client keeps waiting on its own retry policy. `come_back()` drops every connection, as a
restarted host does, and passes new ones on again, so a test sees the same store (the emulator)
before, during and after its outage."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from backends.gcp.deadline import CallDeadline

# The deadline tests behind a black hole give the adapters, and how long they wait for an
# answer: far over that deadline, far under the clients' own policies (20 s to 600 s).
TEST_DEADLINE = CallDeadline(1.0)
ANSWERED_WITHIN = 15.0


class BlackHole:
    """Listens on `address` (127.0.0.1:port) and passes connections on to `host` until
    `go_silent()`, and again after `come_back()`."""

    def __init__(self, host: str) -> None:
        name, _, port = host.rpartition(":")
        self._target = (name, int(port))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)  # the accept loop checks `_closed` this often
        self.address = f"127.0.0.1:{self._listener.getsockname()[1]}"
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._silent = threading.Event()
        self._closed = threading.Event()
        self._accepting = threading.Thread(target=self._accept, name="black hole", daemon=True)
        self._accepting.start()

    def go_silent(self) -> None:
        """From now on, answer nothing: hold new connections, drop what the open ones carry."""
        self._silent.set()

    def come_back(self) -> None:
        """Drop every connection, then pass new ones on again."""
        self._drop_all()
        self._silent.clear()

    def close(self) -> None:
        self._closed.set()
        self._accepting.join(timeout=5)
        self._listener.close()
        self._drop_all()

    def _drop_all(self) -> None:
        with self._lock:
            dropped, self._open = self._open, []
        for conn in dropped:
            _close(conn)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            with self._lock:
                self._open.append(conn)
            if not self._silent.is_set():
                self._pass_on(conn)  # a silent one is held: read nothing, answer nothing

    def _pass_on(self, conn: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self._target, timeout=5)
        except OSError:
            _close(conn)
            return
        upstream.settimeout(None)
        with self._lock:
            self._open.append(upstream)
        for source, sink in ((conn, upstream), (upstream, conn)):
            threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        """Copy `source` to `sink` (dropping it while silent) until either end closes."""
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if not self._silent.is_set():
                    sink.sendall(data)
        _close(source)
        _close(sink)


def _close(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)
    conn.close()


@contextmanager
def black_hole(host: str) -> Iterator[BlackHole]:
    """A BlackHole in front of `host`, closed (every connection with it) on the way out."""
    hole = BlackHole(host)
    try:
        yield hole
    finally:
        hole.close()
