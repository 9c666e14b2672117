#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# dgram_sink.py - a unix datagram socket that writes down what it receives:
# the sd_notify socket and the /dev/log of the integration tests (not a
# test itself: CTest runs tests/integ/*.sh only)
#
#   dgram_sink.py SOCKET LOG SECONDS STOP
#
# Binds SOCKET (it must not exist), then appends each datagram to LOG as
# one line, flushed at once, until a datagram matches the regular
# expression STOP (re.search) or none came for SECONDS.
import re
import socket
import sys

path, log, secs, stop = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(secs)
with open(log, "w") as f:
    while True:
        try:
            m = s.recv(4096).decode()
        except socket.timeout:
            break
        f.write(m + "\n")
        f.flush()
        if re.search(stop, m):
            break
