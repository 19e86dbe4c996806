#!/usr/bin/env python3
"""Two `rocketstore` binaries (old vs new) on the same rs_peer workloads, same run (issue 20).

Each produce change is kept or dropped on its before/after figures: this starts both
binaries' `rocketstore serve` (ASYNC_FLUSH, and SYNC_FLUSH for the sync rows) on free
loopback ports, stores under one temp dir, and runs each row on both, the order
alternating per round (OLD NEW, then NEW OLD) so the VM's drift hits both alike.

  row            server       rs_peer
  async 1x256    ASYNC_FLUSH  produce, 1 connection x 256 in flight, 1 KiB
  async 4x64     ASYNC_FLUSH  produce, 4 x 64
  async 50x1     ASYNC_FLUSH  produce, 50 x 1
  sync 50x1      SYNC_FLUSH   produce, 50 x 1 (every answer after its group commit)
  latency 1x1    ASYNC_FLUSH  latency: one send at a time, 1 KiB

Per row and binary: msgs/s and the server's CPU per message (all threads, from /proc),
and for the latency row the send's p50 in microseconds; per round the ratios NEW/OLD
(rate > 1: NEW faster; CPU < 1: NEW spends less; p50 < 1: NEW answers sooner); at the
end the median and range of each over the rounds.

  bench/peers/ab_serve.py --old /path/to/old/rocketstore [--new build/release/rocketstore]
                          [--peer build/release/bench/rs_peer] [--rounds 3] [--seconds 4]
                          [--rows async1x256,sync50x1,latency1x1] [--memory-limit MIB]
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_peers  # noqa: E402  (its server start/stop and result parsing)

ROWS = {
    "async1x256": ("async", "1x256"),
    "async4x64": ("async", "4x64"),
    "async50x1": ("async", "50x1"),
    "sync50x1": ("sync", "50x1"),
    "latency1x1": ("async", "latency"),
}


def start_serve(binary, tag, mode, tmp):
    bport, nport = run_peers.free_port(), run_peers.free_port()
    argv = [binary, "serve", "--broker-port", str(bport), "--namesrv-port", str(nport),
            "--store", f"{tmp}/{tag}-{mode}", "--console-listen", "0", "--metrics-port", "0",
            "--log-level", "warn", "--log-file", f"{tmp}/{tag}-{mode}.log"]
    if mode == "sync":
        argv.append("--sync-flush")
    p = run_peers.start(f"{tag}-{mode}", argv, f"{tmp}/{tag}-{mode}.out", bport)
    return p, f"127.0.0.1:{bport}"


def rs_peer(peer, what, addr, pid, seconds, shape=None):
    """One rs_peer run (`produce` with `shape`, or `latency`) against a server."""
    argv = [peer, what, "--addr", addr] + (["--shape", shape] if shape else [])
    return run_peers.run_client(
        argv + ["--seconds", str(seconds), "--size", str(run_peers.BODY_SIZE),
                "--server-pid", str(pid)], f"rs_peer {shape or what}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="the baseline rocketstore binary")
    ap.add_argument("--new", default=run_peers.ROCKETSTORE)
    ap.add_argument("--peer", default=run_peers.RS_PEER, help="the rs_peer client")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--rows", default=",".join(ROWS))
    ap.add_argument("--memory-limit", type=int, metavar="MIB",
                    help="each server in a memory cgroup of MIB MiB (see run_peers.py)")
    args = ap.parse_args()
    run_peers.memory_limit_mib = args.memory_limit
    rows = args.rows.split(",")
    for r in rows:
        if r not in ROWS:
            ap.error(f"unknown row {r!r}; rows: {', '.join(ROWS)}")
    for b in (args.old, args.new, args.peer):
        if not os.access(b, os.X_OK):
            ap.error(f"{b} is not an executable (build it first)")

    ratios = {r: ([], [], []) for r in rows}
    with tempfile.TemporaryDirectory(prefix="ab-serve-") as tmp:
        try:
            servers = {}
            for tag, binary in (("old", args.old), ("new", args.new)):
                for mode in sorted({ROWS[r][0] for r in rows}):
                    servers[(tag, mode)] = start_serve(binary, tag, mode, tmp)
            # With --memory-limit: every server's cgroup filled first (run_peers.py).
            for (tag, mode), (p, addr) in servers.items():
                run_peers.fill_page_cache(
                    f"{tag}-{mode}",
                    lambda addr=addr, p=p: rs_peer(args.peer, "produce", addr, p.pid, 2, "4x64"))
            print(f"{'round':>5}  {'row':<11} {'binary':<4} {'msgs/s':>10} {'cpu us/msg':>11}")
            for rnd in range(1, args.rounds + 1):
                for row in rows:
                    mode, shape = ROWS[row]
                    order = ("old", "new") if rnd % 2 == 1 else ("new", "old")
                    got = {}
                    for tag in order:
                        p, addr = servers[(tag, mode)]
                        if shape == "latency":
                            res = rs_peer(args.peer, "latency", addr, p.pid, args.seconds)
                        else:
                            res = rs_peer(args.peer, "produce", addr, p.pid, args.seconds, shape)
                        rate = res["msgs"] / res["secs"]
                        cpu = res["cpu_us"] / max(res["msgs"], 1)
                        p50 = res.get("latency", {}).get("p50_us", 0.0)
                        got[tag] = (rate, cpu, p50)
                        print(f"{rnd:>5}  {row:<11} {tag:<4} {rate:>10.0f} {cpu:>11.2f}"
                              + (f"  p50 {p50:.1f} us" if p50 else ""), flush=True)
                    rr = got["new"][0] / got["old"][0]
                    cr = got["new"][1] / got["old"][1]
                    ratios[row][0].append(rr)
                    ratios[row][1].append(cr)
                    lr = got["new"][2] / got["old"][2] if got["old"][2] else 0.0
                    ratios[row][2].append(lr)
                    print(f"{rnd:>5}  {row:<11} new/old rate {rr:.2f}x, cpu {cr:.2f}x"
                          + (f", p50 {lr:.2f}x" if lr else ""), flush=True)
        finally:
            run_peers.stop_all()

    print("\nmedians over rounds (range): rate new/old (> 1 faster), cpu new/old (< 1 cheaper)")
    for row in rows:
        rr, cr, lr = ratios[row]
        line = (f"  {row:<11} rate {statistics.median(rr):.2f}x ({min(rr):.2f}-{max(rr):.2f})"
                f"   cpu {statistics.median(cr):.2f}x ({min(cr):.2f}-{max(cr):.2f})")
        if any(lr):
            line += f"   p50 {statistics.median(lr):.2f}x ({min(lr):.2f}-{max(lr):.2f})"
        print(line)


if __name__ == "__main__":
    main()
