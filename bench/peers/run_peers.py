#!/usr/bin/env python3
"""`make bench-peers` (issue 20): rocketstore against NATS JetStream and Redis, same run.

Starts, each on a free loopback port with its data under one temp dir:
  rocketstore serve (ASYNC_FLUSH), rocketstore serve --sync-flush,
  nats-server -js (stream BENCH: file storage, 1 replica),
  redis-server with appendonly + appendfsync always, and one with everysec.
Then runs ROUNDS rounds of these rows, each row rocketstore vs its peer, the order
alternating per round (A B, then B A) so drift in the VM's speed hits both alike:

  row            rocketstore                          peer
  async 1x256    rs_peer produce, 1 conn x 256        nats_peer produce 1x256 (js_PublishAsync)
  async 4x64     rs_peer produce, 4 conns x 64        nats_peer produce 4x64
  consume        rs_peer consume (32 per pull)        nats_peer consume (pull, batch 32)
  always 50x1    SYNC_FLUSH server, 50 conns x 1      redis-benchmark -c 50 -P 1 XADD, always
  everysec 50x1  ASYNC_FLUSH server, 50 conns x 1     redis-benchmark -c 50 -P 1 XADD, everysec
  latency 1x1    ASYNC_FLUSH server, 1 conn, 1 send   the loopback round trip of the same bytes
                 at a time: p50/p99 per send          to an echo thread on the client's CPU and
                 (the client pinned to a CPU)         one on another CPU (in rs_peer, same run)

Per row and system: msgs/s; the server's CPU per message in microseconds (utime + stime of
every thread in /proc/<pid>/task/*/stat over the measured window: the clients sample it
themselves at the window's edges, for redis-benchmark this script does around the run);
the server threads that spent the most; and per round the ratios rocketstore/peer (rate:
> 1 means rocketstore is faster; CPU: < 1 means it spends less). Ends with the medians.

  run_peers.py [--quick] [--rounds 3] [--seconds 5] [--rows async1x256,consume,...]
               [--keep]   (keep the temp dir: server logs and data)
               [--memory-limit MIB]  (rocketstore and NATS each in a memory cgroup of MIB
                                      MiB: their page cache is recycled instead of growing
                                      into free memory; Redis is not limited. Each limited
                                      server's cgroup is filled first by short produce runs,
                                      so every round measures the recycling)
--quick: 1 round of 2 s rows (a smoke test). Everything started is stopped at the end,
also on Ctrl-C or a failure.
"""
import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build", "release")
ROCKETSTORE = os.path.join(BUILD, "rocketstore")
RS_PEER = os.path.join(BUILD, "bench", "rs_peer")
NATS_PEER_SRC = os.path.join(ROOT, "bench", "peers", "nats_peer.c")
NATS_PEER = os.path.join(BUILD, "bench", "peers", "nats_peer")
BODY_SIZE = 1024

children = []  # every server process started (stopped by stop_all)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, name, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{name} not listening on {port} after {timeout} s")


# --memory-limit: each server in its own memory cgroup of this many MiB (None: no limit).
memory_limit_mib = None
cgroups = []  # cgroup directories created (removed by stop_all)
cgroup_of = {}  # server name -> its cgroup directory


def memory_cgroup_parent():
    """The directory of this process's memory cgroup (v1 or v2), where server cgroups go."""
    with open("/proc/self/cgroup") as f:
        lines = f.read().splitlines()
    for line in lines:  # v1: "4:memory:/path"
        _, controllers, path = line.split(":", 2)
        d = "/sys/fs/cgroup/memory" + path
        if "memory" in controllers.split(",") and os.path.isdir(d):
            return d
    for line in lines:  # v2: "0::/path", the memory controller enabled for children
        if line.startswith("0::"):
            for root in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                d = root + line[3:]
                try:
                    with open(os.path.join(d, "cgroup.subtree_control")) as f:
                        if "memory" in f.read().split():
                            return d
                except OSError:
                    pass
    raise RuntimeError("--memory-limit needs a memory cgroup this process can create children "
                       "in (cgroup v1 memory, or v2 with memory in cgroup.subtree_control); "
                       "run as root, or leave the option out")


def memory_cgroup(name):
    """A new memory cgroup limited to memory_limit_mib, for one server: its procs file."""
    d = os.path.join(memory_cgroup_parent(), f"bench-peers-{os.getpid()}-{name}")
    try:
        os.makedirs(d, exist_ok=True)
        cgroups.append(d)
        limit = str(memory_limit_mib << 20)
        if os.path.exists(os.path.join(d, "memory.max")):  # v2
            with open(os.path.join(d, "memory.max"), "w") as f:
                f.write(limit)
        else:
            with open(os.path.join(d, "memory.limit_in_bytes"), "w") as f:
                f.write(limit)
    except OSError as e:
        raise RuntimeError(f"--memory-limit: cannot set up the memory cgroup {d}: {e} "
                           "(run as root, or leave the option out)") from e
    cgroup_of[name] = d
    return os.path.join(d, "cgroup.procs")


def cgroup_usage(name):
    """Bytes charged to the server's memory cgroup (page cache included)."""
    d = cgroup_of[name]
    for f in ("memory.current", "memory.usage_in_bytes"):  # v2, v1
        path = os.path.join(d, f)
        if os.path.exists(path):
            with open(path) as fh:
                return int(fh.read())
    raise RuntimeError(f"--memory-limit: no usage file in {d}")


def fill_page_cache(name, produce, limit_s=120):
    """With --memory-limit: runs `produce()` (a short produce run against the server) until
    the server's cgroup is full, so the rounds measure a server that recycles its page cache
    as on a long-running host, not one that pays this VM's first touch of fresh memory
    (docs/benchmarks-produce.md, Session 27). Every limited server is filled alike."""
    if not memory_limit_mib or name not in cgroup_of:
        return
    limit = memory_limit_mib << 20
    t0 = time.monotonic()
    while cgroup_usage(name) < 0.95 * limit and time.monotonic() - t0 < limit_s:
        produce()
    print(f"fill: {name} cgroup at {cgroup_usage(name) / (1 << 30):.2f} of "
          f"{limit / (1 << 30):.2f} GiB after {time.monotonic() - t0:.0f} s", flush=True)


def start(name, argv, log_path, port, limit_memory=True):
    """Starts a server; with --memory-limit and limit_memory, inside its own memory cgroup."""
    log = open(log_path, "wb")
    procs = memory_cgroup(name) if memory_limit_mib and limit_memory else None

    def enter_cgroup():  # in the child, before exec: the server and its threads are charged
        with open(procs, "w") as f:
            f.write(str(os.getpid()))

    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True,  # Ctrl-C reaches us, not the servers
                            preexec_fn=enter_cgroup if procs else None)
    proc.bench_name = name
    children.append(proc)
    wait_port(port, proc, name)
    return proc


def stop_all():
    for p in children:
        if p.poll() is None:
            p.terminate()
    for p in children:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    children.clear()
    for d in cgroups:
        try:
            os.rmdir(d)
        except OSError:
            pass  # a server that did not exit yet: the empty cgroup is left, harmless
    cgroups.clear()


def proc_cpu_us(pid):
    """{tid: (thread name, utime + stime in microseconds)} of every thread of pid."""
    tick = os.sysconf("SC_CLK_TCK")
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                text = f.read()
        except OSError:
            continue  # the thread exited
        name = text[text.index("(") + 1:text.rindex(")")]
        rest = text.rsplit(")", 1)[1].split()
        threads[tid] = (name, (int(rest[11]) + int(rest[12])) * 1_000_000 // tick)  # 14, 15
    return threads


def cpu_delta(before, after):
    """(total us, {thread name: us}) spent between two proc_cpu_us samples."""
    by_name = {}
    for tid, (name, us) in after.items():
        d = us - before.get(tid, (name, 0))[1]
        by_name[name] = by_name.get(name, 0) + d
    return sum(by_name.values()), {k: v for k, v in by_name.items() if v > 0}


def parse_result(out, what):
    for line in out.splitlines():
        if line.startswith("RESULT "):
            kv = dict(item.split("=", 1) for item in line.split()[1:])
            threads = {}
            for t in filter(None, kv.get("threads", "").split(",")):
                name, us = t.rsplit(":", 1)
                threads[name] = int(us)
            result = {"msgs": int(kv["msgs"]), "secs": float(kv["secs"]),
                      "cpu_us": int(kv["server_cpu_us"]), "threads": threads}
            for extra in out.splitlines():  # rs_peer latency: percentiles in microseconds
                if extra.startswith("LATENCY "):
                    result["latency"] = {k: float(v) for k, v in
                                         (item.split("=", 1) for item in extra.split()[1:])}
            return result
    raise RuntimeError(f"{what}: no RESULT line in its output:\n{out}")


def run_client(argv, what):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"{what} failed ({r.returncode}): {r.stderr.strip()}\n{r.stdout}")
    return parse_result(r.stdout, what)


class Bench:
    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.redis_rate = {}  # last msgs/s per redis server: sizes the next -n
        self.consumers = 0

    def start_servers(self):
        t = self.tmp
        self.rs = {}
        for mode in ("async", "sync"):
            bport, nport = free_port(), free_port()
            argv = [ROCKETSTORE, "serve", "--broker-port", str(bport), "--namesrv-port",
                    str(nport), "--store", f"{t}/rs-{mode}", "--console-listen", "0",
                    "--metrics-port", "0", "--log-level", "warn",
                    "--log-file", f"{t}/rs-{mode}.log"]
            if mode == "sync":
                argv.append("--sync-flush")
            p = start(f"rocketstore-{mode}", argv, f"{t}/rs-{mode}.out", bport)
            self.rs[mode] = (p, f"127.0.0.1:{bport}")
        port = free_port()
        os.makedirs(f"{t}/nats")
        p = start("nats-server", ["nats-server", "-js", "-sd", f"{t}/nats", "-a", "127.0.0.1",
                                  "-p", str(port)], f"{t}/nats.log", port)
        self.nats = (p, f"nats://127.0.0.1:{port}")
        subprocess.run([NATS_PEER, "setup", "--url", self.nats[1]], check=True)
        self.redis = {}
        for fsync in ("always", "everysec"):
            port = free_port()
            os.makedirs(f"{t}/redis-{fsync}")
            argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                    "--dir", f"{t}/redis-{fsync}", "--appendonly", "yes",
                    "--appendfsync", fsync, "--save", "", "--daemonize", "no",
                    "--logfile", f"{t}/redis-{fsync}.log"]
            # Never limited: a Redis stream lives in memory, so a limit would measure reclaim
            # of the data itself, not of a page cache.
            p = start(f"redis-{fsync}", argv, f"{t}/redis-{fsync}.out", port,
                      limit_memory=False)
            self.redis[fsync] = (p, port)

    def fill(self):
        """With --memory-limit: each limited server's cgroup filled before the rounds."""
        fill_page_cache("rocketstore-async", lambda: self.rs_produce("async", "4x64", 2))
        fill_page_cache("rocketstore-sync", lambda: self.rs_produce("sync", "4x64", 2))
        fill_page_cache("nats-server", lambda: self.nats_produce("4x64", 2))

    # ---- one side of a row: returns {"msgs","secs","cpu_us","threads"} ----
    def rs_produce(self, mode, shape, seconds=None):
        p, addr = self.rs[mode]
        return run_client([RS_PEER, "produce", "--addr", addr, "--shape", shape, "--seconds",
                           str(seconds or self.args.seconds), "--size", str(BODY_SIZE),
                           "--serialize", self.args.serialize, "--server-pid", str(p.pid)],
                          f"rs_peer produce {shape} ({mode})")

    def rs_consume(self):
        p, addr = self.rs["async"]
        return run_client([RS_PEER, "consume", "--addr", addr, "--seconds",
                           str(self.args.seconds), "--server-pid", str(p.pid)],
                          "rs_peer consume")

    def rs_latency(self):
        p, addr = self.rs["async"]
        return run_client([RS_PEER, "latency", "--addr", addr, "--seconds",
                           str(self.args.seconds), "--size", str(BODY_SIZE),
                           "--server-pid", str(p.pid)], "rs_peer latency")

    def nats_produce(self, shape, seconds=None):
        p, url = self.nats
        return run_client([NATS_PEER, "produce", "--url", url, "--shape", shape, "--seconds",
                           str(seconds or self.args.seconds), "--size", str(BODY_SIZE),
                           "--server-pid", str(p.pid)], f"nats_peer produce {shape}")

    def nats_consume(self):
        p, url = self.nats
        self.consumers += 1  # a new durable each time, so each reads from the start
        return run_client([NATS_PEER, "consume", "--url", url, "--seconds",
                           str(self.args.seconds), "--durable", f"bench{self.consumers}",
                           "--server-pid", str(p.pid)], "nats_peer consume")

    def redis_xadd(self, fsync):
        p, port = self.redis[fsync]
        rate = self.redis_rate.get(fsync, 20000)
        n = max(2000, int(rate * self.args.seconds))
        argv = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-c", "50", "-P", "1",
                "-n", str(n), "--csv", "XADD", "peerbench", "*", "f", "x" * BODY_SIZE]
        cpu0 = proc_cpu_us(p.pid)
        t0 = time.monotonic()
        r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        secs = time.monotonic() - t0
        cpu1 = proc_cpu_us(p.pid)
        if r.returncode != 0 or "ERR" in r.stdout:
            raise RuntimeError(f"redis-benchmark ({fsync}) failed: {r.stderr}\n{r.stdout}")
        # Its own rate (its window starts after the 50 connects) when it prints one.
        m = re.search(r'^"XADD[^"]*","([\d.]+)"', r.stdout, re.M)
        if m:
            secs = n / float(m.group(1))
        self.redis_rate[fsync] = n / secs
        total, threads = cpu_delta(cpu0, cpu1)
        return {"msgs": n, "secs": secs, "cpu_us": total, "threads": threads}


ROWS = {
    # name: (label, rocketstore side, peer label, peer side)
    "async1x256": ("async 1x256", lambda b: b.rs_produce("async", "1x256"),
                   "nats", lambda b: b.nats_produce("1x256")),
    "async4x64": ("async 4x64", lambda b: b.rs_produce("async", "4x64"),
                  "nats", lambda b: b.nats_produce("4x64")),
    "consume": ("consume", lambda b: b.rs_consume(), "nats", lambda b: b.nats_consume()),
    "always50x1": ("SYNC 50x1", lambda b: b.rs_produce("sync", "50x1"),
                   "redis always", lambda b: b.redis_xadd("always")),
    "everysec50x1": ("async 50x1", lambda b: b.rs_produce("async", "50x1"),
                     "redis everysec", lambda b: b.redis_xadd("everysec")),
    # One rs_peer run measures both sides, alternating blocks of 100 (see main).
    "latency1x1": ("latency 1x1", lambda b: b.rs_latency(), "loopback echo", None),
}


def rate(r):
    return r["msgs"] / r["secs"] if r["secs"] > 0 else 0.0


def cpu_per_msg(r):
    return r["cpu_us"] / r["msgs"] if r["msgs"] > 0 else 0.0


def top_threads(r, n=3):
    if not r["threads"] or r["msgs"] == 0:
        return "-"
    items = sorted(r["threads"].items(), key=lambda kv: -kv[1])[:n]
    return " ".join(f"{k}={v / r['msgs']:.2f}" for k, v in items)


def human(x):
    return f"{x / 1e3:.1f} k" if x < 1e6 else f"{x / 1e6:.2f} M"


def build_nats_peer():
    if (os.path.exists(NATS_PEER)
            and os.path.getmtime(NATS_PEER) >= os.path.getmtime(NATS_PEER_SRC)
            and os.path.getmtime(NATS_PEER) >= os.path.getmtime(
                os.path.join(ROOT, "bench", "peers", "proc_cpu.h"))):
        return
    os.makedirs(os.path.dirname(NATS_PEER), exist_ok=True)
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-o", NATS_PEER, NATS_PEER_SRC, "-lnats",
                    "-lpthread"], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 round of 2 s rows")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--rows", default=",".join(ROWS), help="comma list of " + ",".join(ROWS))
    ap.add_argument("--serialize", default="json", choices=["json", "rocketmq"],
                    help="rocketstore request header encoding (a 4.9.8 client's default: json)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (logs, data)")
    ap.add_argument("--memory-limit", type=int, metavar="MIB",
                    help="run rocketstore and NATS each in its own memory cgroup of MIB MiB, "
                    "so their page cache is recycled as on a long-running host instead of "
                    "growing into free memory (Redis, whose data is in memory, is not "
                    "limited); see docs/benchmarks-produce.md")
    args = ap.parse_args()
    global memory_limit_mib
    memory_limit_mib = args.memory_limit
    if args.quick:
        args.rounds, args.seconds = 1, 2
    rows = args.rows.split(",")
    for r in rows:
        if r not in ROWS:
            sys.exit(f"run_peers: unknown row '{r}' (rows: {', '.join(ROWS)})")
    for exe in (ROCKETSTORE, RS_PEER):
        if not os.access(exe, os.X_OK):
            sys.exit(f"run_peers: {exe} missing: build it (make bench-peers does)")
    for tool in ("nats-server", "redis-server", "redis-benchmark"):
        if shutil.which(tool) is None:
            sys.exit(f"run_peers: {tool} not installed: scripts/install-deps.sh --bench-peers")
    build_nats_peer()

    tmp = tempfile.mkdtemp(prefix="bench-peers-")

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    results = {r: [] for r in rows}  # row -> [(rs, peer)] per round
    try:
        b = Bench(args, tmp)
        b.start_servers()
        b.fill()
        print(f"bench-peers: {args.rounds} round(s) x {args.seconds:g} s per row and system, "
              f"1 KiB messages, {os.cpu_count()} cores shared by servers and clients; "
              f"load average at start {os.getloadavg()[0]:.2f}; data in {tmp}")
        print(f"{'round':<6}{'row':<15}{'system':<16}{'msgs/s':>11}{'cpu us/msg':>12}"
              f"   top server threads (us/msg)")
        for rnd in range(args.rounds):
            for name in rows:
                label, rs_fn, peer_label, peer_fn = ROWS[name]
                if peer_fn is None:  # latency: the send's p50 over the loopback echo's
                    r = rs_fn(b)
                    lat = r["latency"]
                    print(f"{rnd + 1:<6}{label:<15}{'rocketstore':<16}"
                          f"{'p50 ' + format(lat['p50_us'], '.1f') + ' us':>11}"
                          f"{'p99 ' + format(lat['p99_us'], '.1f'):>12}   "
                          f"(ASYNC_FLUSH, one send at a time)", flush=True)
                    print(f"{rnd + 1:<6}{label:<15}{peer_label:<16}"
                          f"{'p50 ' + format(lat['rtt_p50_us'], '.1f') + ' us':>11}"
                          f"{'p99 ' + format(lat['rtt_p99_us'], '.1f'):>12}   "
                          f"(same bytes, an echo on the client's CPU; on the other CPU: "
                          f"p50 {lat['rtt_cross_p50_us']:.1f} us, p99 "
                          f"{lat['rtt_cross_p99_us']:.1f})", flush=True)
                    rr = lat["p50_us"] / lat["rtt_p50_us"] if lat["rtt_p50_us"] else 0
                    results[name].append((rr, rr))
                    print(f"{rnd + 1:<6}{label:<15}{'p50 rs/echo':<16}{rr:>10.2f}x", flush=True)
                    continue
                order = [("rocketstore", rs_fn), (peer_label, peer_fn)]
                if rnd % 2 == 1:
                    order.reverse()
                got = {}
                for who, fn in order:
                    got[who] = r = fn(b)
                    print(f"{rnd + 1:<6}{label:<15}{who:<16}{human(rate(r)):>11}"
                          f"{cpu_per_msg(r):>12.2f}   {top_threads(r)}", flush=True)
                rs, peer = got["rocketstore"], got[peer_label]
                rr = rate(rs) / rate(peer) if rate(peer) else 0
                cr = cpu_per_msg(rs) / cpu_per_msg(peer) if cpu_per_msg(peer) else 0
                results[name].append((rr, cr))
                print(f"{rnd + 1:<6}{label:<15}{'ratio rs/peer':<16}{rr:>10.2f}x{cr:>11.2f}x",
                      flush=True)
        print("\nmedian over rounds (range) of rocketstore/peer:")
        print(f"{'row':<15}{'peer':<16}{'msgs/s ratio':>22}{'cpu/msg ratio':>24}")
        for name in rows:
            label, _, peer_label, peer_fn = ROWS[name]
            rr = [x[0] for x in results[name]]
            if peer_fn is None:
                print(f"{label:<15}{peer_label:<16}{'p50 latency ratio':>22} "
                      f"{statistics.median(rr):.2f} ({min(rr):.2f}-{max(rr):.2f})")
                continue
            cr = [x[1] for x in results[name]]
            print(f"{label:<15}{peer_label:<16}{statistics.median(rr):>8.2f} "
                  f"({min(rr):.2f}-{max(rr):.2f})     {statistics.median(cr):>8.2f} "
                  f"({min(cr):.2f}-{max(cr):.2f})")
        print(f"load average at end {os.getloadavg()[0]:.2f}")
        return 0
    except KeyboardInterrupt as e:
        print(f"bench-peers: interrupted ({e}); stopping the servers", file=sys.stderr)
        return 130
    except (RuntimeError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        print(f"bench-peers: {e}", file=sys.stderr)
        return 1
    finally:
        stop_all()
        if args.keep:
            print(f"bench-peers: kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
