#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What systemd does for systemd/nbdkit-ioqos.{socket,service}, for tests.

supervise.py SOCKET PIDFILE MAX_STARTS SECONDS -- COMMAND...

Binds a unix stream socket at SOCKET and keeps it open; runs COMMAND with
it as file descriptor 3 (LISTEN_FDS=1, LISTEN_PID = the child's PID:
socket activation) and runs it again 100 ms after it ends (Restart=always,
RestartSec=100ms), at most MAX_STARTS times in all.  The running child's
PID is in PIDFILE; each start prints "start N pid P", each end "end N
status S" (a negative status is the signal).  Ends by itself after SECONDS,
or on SIGTERM, stopping the child first (SIGTERM, then SIGKILL after 5 s).
"""
import os
import signal
import socket
import sys
import time


def main():
    if len(sys.argv) < 6 or sys.argv[5] != "--":
        sys.exit(__doc__)
    path, pidfile = sys.argv[1], sys.argv[2]
    max_starts, secs = int(sys.argv[3]), float(sys.argv[4])
    cmd = sys.argv[6:]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(128)
    deadline = time.monotonic() + secs
    stopping = False
    kill_at = None           # when a child told to stop gets SIGKILL
    child = 0

    def stop_child():
        nonlocal stopping, kill_at
        stopping = True
        if child:
            os.kill(child, signal.SIGTERM)
            kill_at = time.monotonic() + 5

    def on_term(signum, frame):
        stop_child()
    signal.signal(signal.SIGTERM, on_term)

    for n in range(1, max_starts + 1):
        if stopping or time.monotonic() >= deadline:
            break
        child = os.fork()
        if child == 0:
            os.dup2(sock.fileno(), 3)
            os.set_inheritable(3, True)
            os.environ["LISTEN_FDS"] = "1"
            os.environ["LISTEN_PID"] = str(os.getpid())
            os.execvp(cmd[0], cmd)
        with open(pidfile + ".tmp", "w") as f:
            f.write("%d\n" % child)
        os.replace(pidfile + ".tmp", pidfile)
        print("start %d pid %d" % (n, child), flush=True)
        while True:
            if not stopping and time.monotonic() >= deadline:
                stop_child()
            try:
                pid, status = os.waitpid(child, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == child:
                break
            if kill_at is not None and time.monotonic() > kill_at:
                os.kill(child, signal.SIGKILL)
                kill_at = None
            time.sleep(0.02)
        code = os.waitstatus_to_exitcode(status)
        print("end %d status %d" % (n, code), flush=True)
        child = 0
        kill_at = None
        time.sleep(0.1)
    sock.close()
    os.unlink(path)


main()
