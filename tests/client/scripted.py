"""A server that answers what a test scripts, hostile or merely busy: each request gets the next answer of the
script (the last one again when the script runs out), and every request is kept for the test to look at."""

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Answer:
    def __init__(self, status=200, body=b"{}", headers=None, trickle=None, length=None):
        """`trickle`: seconds between the body's bytes (each sent alone); `length`: the Content-Length stated
        (None: the body's own; False: none, the body ends when the connection closes)."""
        self.status, self.body, self.headers = status, body, headers or {}
        self.trickle, self.length = trickle, length


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _serve(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.seen.append((self.command, self.path, dict(self.headers), body))
        script = self.server.script
        answer = script.pop(0) if len(script) > 1 else script[0]
        answer = answer(self) if callable(answer) else answer
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json")
        if answer.length is not False:
            self.send_header("Content-Length", str(len(answer.body) if answer.length is None else answer.length))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        try:
            if answer.trickle is None:
                self.wfile.write(answer.body)
                return
            for byte in answer.body:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(answer.trickle)
        except OSError:
            self.close_connection = True

    do_GET = do_POST = _serve

    def log_message(self, *args):
        pass


class ScriptedServer:
    def __init__(self, *script):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.server.script = list(script)
        self.server.seen = []
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def seen(self):
        return self.server.seen

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def unused_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
