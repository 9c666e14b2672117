#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# guest_peer.py - the namespace's end of the QEMU guest tests (not a test
# itself: CTest runs tests/integ/*.sh only)
#
#   guest_peer.py ADDR PORT DIR
#
# A small HTTP server the guest's busybox wget talks to:
#   GET  /step        the file DIR/step (then renamed DIR/step.taken), or
#                     an empty body: the guest's next commands
#   GET  /data?n=N    N pseudo-random bytes; their SHA-256 goes to DIR/sent
#   GET  /stream?n=N  N bytes of a repeated random block (long transfers)
# and on PORT + 1 a plain TCP sink for busybox nc (busybox wget posts a
# file only up to its first NUL byte): what a connection sends until it
# shuts down, its SHA-256 and length noted in DIR/got (its length in
# DIR/broken when the peer vanished: a guest reset in the middle).
# Every request and connection has its own thread, which a peer that
# vanished ends after 10 s of silence.
import hashlib
import os
import socket
import socketserver
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse

addr, port, state = sys.argv[1], int(sys.argv[2]), sys.argv[3]
BLOCK = 1 << 20


def note(name, text):
    tmp = os.path.join(state, name + '.tmp')
    with open(tmp, 'w') as f:
        f.write(text + '\n')
    os.replace(tmp, os.path.join(state, name))


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.0'
    timeout = 10

    def log_message(self, fmt, *args):
        pass

    def body(self, n, chunks):
        self.send_response(200)
        self.send_header('Content-Length', str(n))
        self.end_headers()
        for c in chunks:
            self.wfile.write(c)

    def do_GET(self):
        u = urlparse(self.path)
        n = int(parse_qs(u.query).get('n', ['0'])[0])
        if u.path == '/step':
            p = os.path.join(state, 'step')
            try:
                data = open(p, 'rb').read()
                os.replace(p, p + '.taken')
            except FileNotFoundError:
                data = b''
            self.body(len(data), [data])
        elif u.path == '/data':
            data = os.urandom(n)
            note('sent', hashlib.sha256(data).hexdigest())
            self.body(n, [data[i:i + BLOCK] for i in range(0, n, BLOCK)])
        elif u.path == '/stream':
            block = os.urandom(BLOCK)
            chunks = (block[:min(BLOCK, n - i)] for i in range(0, n, BLOCK))
            try:
                self.body(n, chunks)
            except OSError:
                pass
        else:
            self.send_error(404)


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def drain(c):
    c.settimeout(10)
    h = hashlib.sha256()
    n = 0
    try:
        while True:
            d = c.recv(BLOCK)
            if not d:
                break
            h.update(d)
            n += len(d)
        note('got', '%s %d' % (h.hexdigest(), n))
    except OSError:
        # A guest reset in the middle: no end ever comes.
        note('broken', '%d' % n)
    c.close()


def sink():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port + 1))
    s.listen(4)
    while True:
        c, _ = s.accept()
        threading.Thread(target=drain, args=(c,), daemon=True).start()


threading.Thread(target=sink, daemon=True).start()
Server((addr, port), Handler).serve_forever()
