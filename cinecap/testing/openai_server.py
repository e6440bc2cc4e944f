"""A real HTTP server on loopback that speaks the OpenAI chat-completions API, for tests.

openai 3.x sends through httpx2, which in-process mocks do not intercept, so judge and captioner
tests talk to this server over a real socket. Behaviour is scripted: a queue of :class:`Reply`
objects (status, body, delay) is served first, then ``default`` (a function of the request JSON).
Every request is recorded in ``requests``.

    with OpenAIServer(default=lambda req: chat_reply("hello")) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="test")
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict → JSON; str/bytes → sent as is (for malformed bodies)
    delay: float = 0.0  # seconds to wait before answering (timeouts)
    headers: dict[str, str] = field(default_factory=dict)


def chat_reply(content: str, model: str = "test-model", finish_reason: str = "stop",
               prompt_tokens: int = 10, completion_tokens: int = 10) -> Reply:
    """A well-formed chat.completion answer carrying ``content``."""
    return Reply(200, {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def error_reply(status: int, message: str = "error", retry_after: float | None = None) -> Reply:
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return Reply(status, {"error": {"message": message, "type": "server_error", "code": status}},
                 headers=headers)


class OpenAIServer:
    def __init__(self, default: Callable[[dict], Reply] | None = None, host: str = "127.0.0.1"):
        self.default = default or (lambda req: chat_reply("ok"))
        self._initial_default = self.default
        self.queue: deque[Reply] = deque()
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes; without TCP_NODELAY each keep-alive
            # answer waits ~40 ms for the client's delayed ACK, which swamps latency measurements.
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(Reply(200, {"object": "list", "data": [
                        {"id": "test-model", "object": "model", "owned_by": "test"}]}))
                else:
                    self._send(Reply(404, {"error": {"message": "not found"}}))

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    req = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    req = {"_raw": raw.decode("utf-8", "replace")}
                req["_path"] = self.path
                req["_headers"] = dict(self.headers)
                with server._lock:
                    server.requests.append(req)
                    reply = server.queue.popleft() if server.queue else None
                if reply is None:
                    reply = server.default(req)
                if reply.delay:
                    time.sleep(reply.delay)
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                body = reply.body
                if isinstance(body, (dict, list)):
                    data = json.dumps(body).encode()
                elif isinstance(body, str):
                    data = body.encode()
                else:
                    data = body or b""
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def reset(self) -> None:
        """Forget the queue, the recorded requests and any scripted default."""
        with self._lock:
            self.queue.clear()
            self.requests.clear()
            self.default = self._initial_default

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self.queue.extend(replies)

    @property
    def chat_requests(self) -> list[dict]:
        return [r for r in self.requests if r["_path"].endswith("/chat/completions")]

    def start(self) -> "OpenAIServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "OpenAIServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
