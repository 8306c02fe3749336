#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A client whose cgroup is removed before it asks for an export, for tests.

gone_client.py SOCKET CGROUP OTHER

A child joins the cgroup directory CGROUP and connects to the unix socket
SOCKET, so that the server's SO_PEERCRED names it; it forks a grandchild,
which keeps the socket and moves to the cgroup directory OTHER, and exits.
This process does not reap it: a zombie keeps its /proc entry and its
cgroup line, which shows CGROUP as removed ("PATH (deleted)") once this
process has removed CGROUP.  Only then does the grandchild negotiate, with
NBD_OPT_GO for the default export, and the server's filter reads the
zombie's cgroup.  Prints "refused" or "served" and exits 0; exits 2 (the
reason on stderr) where the kernel did not give that state.
"""
import os
import socket
import struct
import sys
import time

OPT_MAGIC = b"IHAVEOPT"
REP_MAGIC = 0x0003E889045565A9
NBD_OPT_ABORT, NBD_OPT_GO = 2, 7
NBD_REP_ACK = 1


def recv_all(sock, n):
    buf = b""
    while len(buf) < n:
        got = sock.recv(n - len(buf))
        if not got:
            raise EOFError("the server closed the connection")
        buf += got
    return buf


def negotiate(sock):
    """NBD_OPT_GO for export "": True if served, False if refused"""
    greeting = recv_all(sock, 18)
    if greeting[:16] != b"NBDMAGIC" + OPT_MAGIC:
        raise ValueError("not an NBD newstyle server")
    (flags,) = struct.unpack(">H", greeting[16:])
    sock.sendall(struct.pack(">I", flags & 3))   # fixed newstyle, no zeroes
    data = struct.pack(">IH", 0, 0)               # no name, no info requests
    sock.sendall(OPT_MAGIC + struct.pack(">II", NBD_OPT_GO, len(data)) + data)
    while True:
        magic, _, rtype, rlen = struct.unpack(">QIII", recv_all(sock, 20))
        if magic != REP_MAGIC:
            raise ValueError("a bad option reply")
        recv_all(sock, rlen)
        if rtype == NBD_REP_ACK or rtype & 0x80000000:
            served = rtype == NBD_REP_ACK
            break
    if not served:
        sock.sendall(OPT_MAGIC + struct.pack(">II", NBD_OPT_ABORT, 0))
    return served


def join(cgroup):
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))


def proc_state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    path, cgroup, other = sys.argv[1:]
    go_r, go_w = os.pipe()
    res_r, res_w = os.pipe()
    child = os.fork()
    if child == 0:
        code = 0
        try:
            join(cgroup)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(path)
            if os.fork() == 0:
                try:
                    join(other)
                    os.read(go_r, 1)
                    os.write(res_w, b"S" if negotiate(sock) else b"R")
                except Exception as e:    # said by the parent, which waits on it
                    os.write(res_w, b"E" + str(e).encode()[:200])
                os._exit(0)
        except Exception as e:
            os.write(res_w, b"E" + str(e).encode()[:200])
            code = 1
        os._exit(code)
    os.close(go_r)
    os.close(res_w)
    # the child exits at once: wait until it is a zombie, then remove its
    # cgroup (its grandchild may still be on its way out of it)
    for _ in range(200):
        if proc_state(child) == "Z":
            break
        time.sleep(0.05)
    for _ in range(200):
        try:
            os.rmdir(cgroup)
            break
        except OSError:
            time.sleep(0.05)
    with open("/proc/%d/cgroup" % child) as f:
        line = [l for l in f.read().splitlines() if l.startswith("0::")]
    if not line or not line[0].endswith(" (deleted)"):
        os.write(go_w, b"x")
        sys.stderr.write("the zombie's cgroup is not shown removed: %s\n" % line)
        sys.exit(2)
    os.write(go_w, b"x")
    res = os.read(res_r, 256)
    os.waitpid(child, 0)
    if res[:1] == b"E":
        sys.stderr.write("the client failed: %s\n" % res[1:].decode(errors="replace"))
        sys.exit(2)
    print("served" if res == b"S" else "refused")


if __name__ == "__main__":
    main()
