#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# peer.py - the two ends of the integration tests' transfers (not a test
# itself: CTest runs tests/integ/*.sh only)
#
#   peer.py server|client tcp ADDR BYTES [PORT]   (PORT default 5201)
#   peer.py server|client udp ADDR COUNT [PORT]   (PORT default 5202)
#
# tcp: the client sends BYTES random bytes and closes its side; the server
# answers with the SHA-256 of what it received; the client exits 0 only
# when that digest is the one of what it sent (bytes intact end to end).
# udp: the server echoes up to COUNT datagrams (3 s idle ends it); the
# client sends COUNT 1200-byte datagrams and exits 0 when at least 90%
# come back identical.  ADDR may be IPv4 or IPv6.
import hashlib
import os
import socket
import sys
import time

mode, proto, addr, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
port = int(sys.argv[5]) if len(sys.argv) > 5 else (5201 if proto == 'tcp' else 5202)
fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
if proto == 'tcp':
    if mode == 'server':
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((addr, port))
        s.listen(1)
        s.settimeout(20)
        c, _ = s.accept()
        h = hashlib.sha256()
        n = 0
        while n < size:
            d = c.recv(1 << 20)
            if not d:
                break
            h.update(d)
            n += len(d)
        c.sendall(h.hexdigest().encode())
        c.close()
    else:
        data = os.urandom(size)
        for _ in range(50):  # the server may still be starting
            try:
                s = socket.create_connection((addr, port), timeout=20)
                break
            except ConnectionRefusedError:
                time.sleep(0.1)
        else:
            sys.exit(1)
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        got = s.recv(100).decode()
        sys.exit(0 if got == hashlib.sha256(data).hexdigest() else 1)
else:
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if mode == 'server':
        s.bind((addr, port))
        s.settimeout(3)
        try:
            for i in range(size):
                d, p = s.recvfrom(65536)
                s.sendto(d, p)
        except socket.timeout:
            pass
    else:
        s.settimeout(0.5)
        good = 0
        for i in range(size):
            d = os.urandom(1200)
            s.sendto(d, (addr, port))
            try:
                if s.recv(65536) == d:
                    good += 1
            except socket.timeout:
                pass
        sys.exit(0 if good >= size * 9 // 10 else 1)
