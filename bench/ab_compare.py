#!/usr/bin/env python3
"""A/B rounds of one benchmark binary against another, in the same run.

This VM's speed drifts 2-3x within minutes, so two binaries are only comparable when
their runs interleave: each round runs OLD then NEW, the next NEW then OLD (ABBA), and
every row's ratio NEW/OLD is taken within its round. Rows are the lines of the
benchmark's table whose first column is a mode (sync, pipelined, consume); the numbers
compared are each row's rate (sends/s or msgs/s) and, where printed, its CPU per send.

  bench/ab_compare.py --old /path/old/broker_produce_consume \\
                      --new build/release/bench/broker_produce_consume \\
                      --rounds 3 -- --seconds 3

Prints every round's rows and, per row, the median and range of the rate ratio
(> 1: NEW is faster) and of the CPU ratio (< 1: NEW spends less).
"""
import argparse
import re
import statistics
import subprocess
import sys

UNITS = {"": 1.0, "k": 1e3, "M": 1e6}
TIME_UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def rate(text, unit):
    return float(text) * UNITS[unit]


def parse(output):
    """Row name -> (rate per second, cpu us per send or None)."""
    rows = {}
    for line in output.splitlines():
        m = re.match(r"^(sync|pipelined)\s+(\d+)\s+(\d+)\s+([\d.]+) ([kM]?)\s+.*?"
                     r"([\d.]+) (ns|us|ms)\s*$", line)
        if m:
            name = f"{m.group(1)} {m.group(2)}x{m.group(3)}"
            cpu = float(m.group(6)) * TIME_UNITS[m.group(7)]
            rows[name] = (rate(m.group(4), m.group(5)), cpu)
            continue
        m = re.match(r"^consume: .*?([\d.]+) ([kM]?) msgs/s", line)
        if m:
            rows["consume"] = (rate(m.group(1), m.group(2)), None)
    return rows


def run(binary, args):
    out = subprocess.run([binary] + args, check=True, capture_output=True, text=True).stdout
    rows = parse(out)
    if not rows:
        sys.exit(f"ab_compare: no rows in the output of {binary}:\n{out}")
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--old", required=True)
    p.add_argument("--new", required=True)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    ratios = {}  # row -> list of (rate ratio, cpu ratio)
    for r in range(a.rounds):
        order = [("old", a.old), ("new", a.new)]
        if r % 2:
            order.reverse()
        got = {label: run(binary, args) for label, binary in order}
        print(f"round {r + 1} ({order[0][0]} first)")
        for row, (new_rate, new_cpu) in got["new"].items():
            if row not in got["old"]:
                continue
            old_rate, old_cpu = got["old"][row]
            rr = new_rate / old_rate
            cr = new_cpu / old_cpu if new_cpu and old_cpu else None
            ratios.setdefault(row, []).append((rr, cr))
            cpu = (f"  cpu/send old {old_cpu:6.1f} us new {new_cpu:6.1f} us ratio {cr:.3f}"
                   if cr else "")
            print(f"  {row:18s} old {old_rate / 1e3:8.1f} k/s new {new_rate / 1e3:8.1f} k/s "
                  f"ratio {rr:.3f}{cpu}")
        sys.stdout.flush()
    print("summary (NEW/OLD per round: rate > 1 is faster, cpu < 1 is cheaper)")
    for row, vals in ratios.items():
        rr = [v[0] for v in vals]
        line = (f"  {row:18s} rate median {statistics.median(rr):.3f} "
                f"[{min(rr):.3f} .. {max(rr):.3f}]")
        cr = [v[1] for v in vals if v[1]]
        if cr:
            line += f"  cpu median {statistics.median(cr):.3f} [{min(cr):.3f} .. {max(cr):.3f}]"
        print(line)


if __name__ == "__main__":
    main()
