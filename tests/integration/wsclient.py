"""A small RFC 6455 WebSocket client for the integration tests.

Standard library only. Besides the ordinary calls it can send frames the
server must refuse: binary frames, oversized or fragmented messages,
invalid UTF-8, unmasked frames.
"""
import base64
import hashlib
import json
import os
import socket
import struct
import time

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONT, OP_TEXT, OP_BINARY = 0x0, 0x1, 0x2
OP_CLOSE, OP_PING, OP_PONG = 0x8, 0x9, 0xA


def frame(opcode, payload, fin=True, mask=True):
    """The bytes of one client frame (masked unless mask is false)."""
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    mbit = 0x80 if mask else 0
    if n < 126:
        head += bytes([mbit | n])
    elif n < 65536:
        head += bytes([mbit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([mbit | 127]) + struct.pack("!Q", n)
    if mask:
        key = os.urandom(4)
        stream = (key * (n // 4 + 1))[:n]
        payload = (int.from_bytes(payload, "big")
                   ^ int.from_bytes(stream, "big")).to_bytes(n, "big")
        head += key
    return head + payload


class HandshakeError(Exception):
    def __init__(self, status, head):
        super().__init__("handshake refused: %s" % status)
        self.status = status
        self.head = head


class Closed(Exception):
    """The server closed the connection (code None: no close frame)."""

    def __init__(self, code=None, reason=""):
        super().__init__("closed: %r %r" % (code, reason))
        self.code = code
        self.reason = reason


class WebSocket:
    def __init__(self, host, port, path="/ws", protocol=None, timeout=5.0,
                 rcvbuf=None, headers=None, ssl_context=None, source=None):
        """headers: extra handshake headers (e.g. Origin); ssl_context: an
        ssl.SSLContext to speak wss (TLS) instead of ws; source: the local
        address to connect from (e.g. "127.0.0.2", another client
        address on loopback)."""
        # Latency injection (lag compensation tests): every frame is
        # written delay_s late and handled delay_s after it was read, so
        # the line looks delay_s long each way; a pong is held back
        # pong_hold_s more (a client holding its pongs back on purpose).
        self.delay_s = 0.0
        self.pong_hold_s = 0.0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        if source:
            self.sock.bind((source, 0))
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        if ssl_context is not None:
            self.sock = ssl_context.wrap_socket(self.sock,
                                                server_hostname=host)
        self.buf = b""
        self.closed = None
        self.protocol = None
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            "GET %s HTTP/1.1" % path,
            "Host: %s:%d" % (host, port),
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: " + key,
            "Sec-WebSocket-Version: 13",
        ]
        if protocol:
            lines.append("Sec-WebSocket-Protocol: " + protocol)
        for k, v in (headers or {}).items():
            lines.append("%s: %s" % (k, v))
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = self._read_until(b"\r\n\r\n").decode("latin-1")
        status = head.split("\r\n")[0]
        if " 101 " not in status + " ":
            self.sock.close()
            raise HandshakeError(status, head)
        headers = {}
        for line in head.split("\r\n")[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        want = base64.b64encode(
            hashlib.sha1((key + GUID).encode()).digest()).decode()
        if headers.get("sec-websocket-accept") != want:
            raise HandshakeError("bad accept key", head)
        self.protocol = headers.get("sec-websocket-protocol")

    def _read_until(self, marker):
        while marker not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Closed(None, "eof during handshake")
            self.buf += chunk
        i = self.buf.index(marker) + len(marker)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def _read_exact(self, n):
        while len(self.buf) < n:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise Closed(None, "eof")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    # ---- sending ----------------------------------------------------------
    def send_frame(self, opcode, payload, fin=True, mask=True):
        if self.delay_s:
            time.sleep(self.delay_s)
        self.sock.sendall(frame(opcode, payload, fin, mask))

    def send_text(self, text):
        data = text.encode() if isinstance(text, str) else text
        self.send_frame(OP_TEXT, data)

    def send(self, obj):
        self.send_text(json.dumps(obj))

    def close(self, code=1000):
        try:
            self.send_frame(OP_CLOSE, struct.pack("!H", code))
        except OSError:
            pass
        self.sock.close()

    def pong(self, data):
        """Answers a ping (pong_hold_s late)."""
        if self.pong_hold_s:
            time.sleep(self.pong_hold_s)
        self.send_frame(OP_PONG, data)

    # ---- receiving --------------------------------------------------------
    def recv_frame(self):
        b0, b1 = self._read_exact(2)
        fin, opcode = bool(b0 & 0x80), b0 & 0x0F
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._read_exact(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read_exact(8))[0]
        if b1 & 0x80:
            key = self._read_exact(4)
            data = bytes(b ^ key[i % 4] for i, b in enumerate(
                self._read_exact(n)))
        else:
            data = self._read_exact(n)
        if self.delay_s:
            time.sleep(self.delay_s)
        return fin, opcode, data

    def recv_message(self):
        """The next complete text message (str); answers pings; raises
        Closed on a close frame or end of stream."""
        parts, first = [], None
        while True:
            fin, opcode, data = self.recv_frame()
            if opcode == OP_PING:
                self.pong(data)
                continue
            if opcode == OP_PONG:
                continue
            if opcode == OP_CLOSE:
                code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 \
                    else None
                self.closed = code
                raise Closed(code, data[2:].decode("utf-8", "replace"))
            if opcode != OP_CONT:
                first = opcode
            parts.append(data)
            if fin:
                payload = b"".join(parts)
                if first == OP_BINARY:
                    return payload
                return payload.decode("utf-8")

    def recv_close(self):
        """Reads until the server closes; returns the close code (None when
        the stream ended without a close frame)."""
        try:
            while True:
                self.recv_message()
        except Closed as c:
            return c.code
        except (ConnectionResetError, BrokenPipeError):
            return None
