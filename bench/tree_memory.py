"""Runs a command and samples the memory of its whole process tree every 0.1 s: the
peak of the sum of resident sets (what the machine had to hold), and the largest
single process. An engine's driver starts a JVM (Spark) or a raylet and workers (Ray)
that a timer of the one process it waits for does not see.

    python bench/tree_memory.py COMMAND [ARG ...]
"""

import os
import subprocess
import sys
import time


def _stat(pid: str):
    """(parent pid, resident bytes) of a process, from /proc; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[1]), int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return None


def tree_rss(root: int) -> list:
    """Resident bytes of `root` and every process descended from it."""
    table = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            stat = _stat(pid)
            if stat:
                table[int(pid)] = stat
    members, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _) in table.items():
            if ppid == parent and pid not in members:
                members.add(pid)
                frontier.append(pid)
    return [table[pid][1] for pid in members if pid in table]


def main() -> None:
    child = subprocess.Popen(sys.argv[1:])
    peak_sum = peak_one = 0
    start = time.monotonic()
    while child.poll() is None:
        sizes = tree_rss(child.pid)
        if sizes:
            peak_sum, peak_one = max(peak_sum, sum(sizes)), max(peak_one, max(sizes))
        time.sleep(0.1)
    wall = time.monotonic() - start
    mib = 1 << 20
    print(
        f"wall {wall:.2f} s; tree peak {peak_sum / mib:.0f} MiB; largest process {peak_one / mib:.0f} MiB; exit {child.returncode}",
        file=sys.stderr,
    )
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
