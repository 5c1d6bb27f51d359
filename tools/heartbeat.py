"""Run a command, passing its output through as it comes, and say that it is still working whenever
it has been silent for a while (pip's "Installing collected packages" prints nothing for minutes):

    python tools/heartbeat.py [--every 5] [--label "still installing"] [--longest] -- COMMAND [ARG...]

The command runs in a pseudo-terminal where there is one (so pip and pytest draw their progress as
on a terminal), else on a pipe. Its exit status is this tool's. With --longest, the longest stretch
without a byte of output (heartbeats count as output) is printed at the end, on standard error:
`python tools/heartbeat.py --every 10000 --longest -- make demo` measures what a user waits for
in silence. Standard library only: it runs before any package is installed.
"""
from __future__ import annotations

import argparse
import os
import select
import subprocess
import sys
import time

LONG = 10.0  # seconds: a silence --longest lists


def _spawn(command: list[str]) -> tuple[subprocess.Popen, int]:
    """The command started with its output on a pseudo-terminal (or a pipe), and the descriptor to read."""
    try:
        import pty

        reader, writer = pty.openpty()
    except (ImportError, OSError):
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert process.stdout is not None
        return process, process.stdout.fileno()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=writer, stderr=writer, close_fds=True)
    os.close(writer)
    return process, reader


def run(command: list[str], every: float, label: str, out=None) -> tuple[int, tuple[float, float], int]:
    """Run `command` to its end; its exit status, its longest silence (seconds, when it began) and
    how many silences lasted over LONG seconds."""
    out = out or sys.stdout.buffer
    process, source = _spawn(command)
    start = last = time.monotonic()
    longest, over, line_open = (0.0, 0.0), 0, False
    while True:
        ready, _, _ = select.select([source], [], [], max(0.0, last + every - time.monotonic()))
        now = time.monotonic()
        if ready:
            try:
                data = os.read(source, 65536)
            except OSError:  # EIO: the command closed the terminal
                data = b""
            if not data:
                break
            out.write(data)
            line_open = not data.endswith((b"\n", b"\r"))
        else:
            out.write((("\n" if line_open else "") + f"  ... {label} ({now - start:.0f} s)\n").encode())
            line_open = False
        out.flush()
        longest, over = max(longest, (now - last, last - start)), over + (now - last > LONG)
        last = now
    os.close(source)
    return process.wait(), longest, over


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=float, default=5.0, help="Seconds of silence before a heartbeat line.")
    parser.add_argument("--label", default="still working", help="What the heartbeat line says.")
    parser.add_argument("--longest", action="store_true",
                        help=f"Print the longest silence at the end, and how many lasted over {LONG:g} s.")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    try:
        status, (longest, at), over = run(command, args.every, args.label)
    except KeyboardInterrupt:  # Ctrl+C reached the command too (one process group): no traceback here
        return 130
    if args.longest:
        print(f"longest silence: {longest:.1f} s, from {at:.1f} s after the start; {over} over {LONG:g} s",
              file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
