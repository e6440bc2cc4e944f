"""A real HTTP server on loopback that answers a chat completion one byte at a time, for the
overall-deadline tests (issue 27 item 9: with ``timeout=5`` a trickling endpoint held one
judgement for 95 s, because every byte arrived within the per-read timeout).

``TrickleServer(interval, part="body")`` sends the status line and headers at once and then the
body one byte every ``interval`` seconds; ``part="headers"`` trickles the headers too. ``sent``
counts the bytes it managed to send before the client hung up, ``done`` the answers sent whole.
"""
from __future__ import annotations

import json
import socket
import threading
import time


class TrickleServer:
    def __init__(self, interval: float = 0.2, part: str = "body", content: str = "trickled"):
        self.interval, self.part = interval, part
        body = json.dumps({"id": "chatcmpl-trickle", "object": "chat.completion", "created": 0,
                           "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
                                                      "message": {"role": "assistant",
                                                                  "content": content}}]}).encode()
        self.head = (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                     b"content-length: " + str(len(body)).encode() + b"\r\n\r\n")
        self.body = body
        self.sent = 0
        self.done = 0
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    @property
    def total_s(self) -> float:
        """How long one whole answer takes to trickle out."""
        slow = len(self.body) + (len(self.head) if self.part == "headers" else 0)
        return slow * self.interval

    def _serve(self) -> None:
        self._sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, rest = data.partition(b"\r\n\r\n")
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(rest) < length:
                    rest += conn.recv(65536)
                slow = self.body if self.part == "body" else self.head + self.body
                if self.part == "body":
                    conn.sendall(self.head)
                for i in range(len(slow)):
                    if self._stop.is_set():
                        return
                    conn.sendall(slow[i:i + 1])
                    self.sent += 1
                    time.sleep(self.interval)
                self.done += 1
            except OSError:  # the client hung up: what the deadline is for
                return

    def __enter__(self) -> "TrickleServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._sock.close()
        self._thread.join(2)
