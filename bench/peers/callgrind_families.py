#!/usr/bin/env python3
"""Instructions per message by function family, from one callgrind dump of the broker.

  callgrind_families.py CALLGRIND_OUT MESSAGES

Reads `callgrind_annotate --inclusive=yes` (cost of a function with everything it calls)
and the self costs. A family is the inclusive cost of its entry functions minus the
inclusive cost of the other families' entry functions they call (so families do not
overlap: "record encode" is counted once, not also inside "store append"). What no
family claims is printed as "rest" (the event loop, locks, allocator calls outside the
entries, idle threads). Also prints the 25 functions with the highest self cost.
bench/peers/profile_produce.sh runs it; docs/benchmarks.md "Produce path profile" reads it.
"""
import re
import subprocess
import sys

# (family, entry-function regexes). The regexes match callgrind's function names
# (demangled, with argument lists). Order matters only for printing.
FAMILIES = [
    ("frame read/parse (DecodeFrame, minus header)", [r"\bprotocol::DecodeFrame\("]),
    ("header decode (JSON/binary -> ext fields)",
     [r"\bprotocol::(internal::)?(DecodeJsonHeader|DecodeBinaryHeader|ParseJsonHeader|"
      r"DecodeHeader)\w*\("]),
    ("send header decode (ext-field lookups)", [r"SendMessageRequestHeader::Decode\("]),
    ("validation + topic resolution (SendService)",
     [r"SendService::(Send|CheckTopic|ResolveTopic|BuildResult)\("]),
    ("store put, minus record encode + memcpy",
     [r"MessageStore::Put\w*\(", r"CommitLog::(Put|PutBatch|AppendLocked)\("]),
    ("record encode (properties, header)",
     [r"format::(Encode|Write|Serialize)\w*Record\w*\(", r"format::EncodeProperties\w*\(",
      r"format::\w*MessageId\w*\("]),
    ("response build + encode",
     [r"BuildSendResponse\(", r"protocol::EncodeFrame\(", r"Connection::Enqueue\("]),
    ("socket writes (DoWrite, asio write path)", [r"Connection::DoWrite\(\)"]),
    ("dispatch: consume queue + index (Dispatcher)",
     [r"Dispatcher::RunOnce\(", r"Reput\w*::\w*Dispatch\w*\("]),
    ("flush service (ASYNC_FLUSH msync/commit)",
     [r"AsyncFlusher::\w+\(", r"Flush\w*Service::\w+\("]),
]
MEMCPY = r"^(__memcpy|__memmove|memcpy|memmove)\w*"

LINE = re.compile(r"^\s*([\d,]+)\s+(?:\([\s\d.]+%\)\s+)?(?:\*\s+)?(.+?)\s*(?:\[[^\]]*\])?\s*$")


def annotate(path, inclusive):
    out = subprocess.run(
        ["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100",
         path], capture_output=True, text=True, check=True).stdout
    costs = {}
    total = 0
    in_table = False
    for line in out.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
            continue
        if re.match(r"^-+$", line.strip()) and total:
            in_table = True
            continue
        if not in_table or not line.strip():
            continue
        m = LINE.match(line)
        if not m:
            continue
        name = m.group(2)
        # "file:function" -> function (files may be ???)
        fn = name.split(":", 1)[1] if re.match(r"^[^ (]*\.\w+:|^\?\?\?:", name) else name
        costs[fn] = costs.get(fn, 0) + int(m.group(1).replace(",", ""))
    return total, costs


def callers_graph(path):
    """fn -> {callee: inclusive cost of the calls}, from the raw dump (names compressed)."""
    names = {}
    graph = {}
    fn = None
    cfn = None
    expect_call = False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
            if m:
                kind, ident, name = m.groups()
                if name is not None:
                    names[ident] = name
                if kind == "fn":
                    fn = names.get(ident)
                else:
                    cfn = names.get(ident)
                continue
            if line.startswith("calls="):
                expect_call = True
                continue
            if expect_call:
                expect_call = False
                parts = line.split()
                if len(parts) >= 2 and fn and cfn:
                    edges = graph.setdefault(fn, {})
                    edges[cfn] = edges.get(cfn, 0) + int(parts[1])
    return graph


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: callgrind_families.py CALLGRIND_OUT MESSAGES")
    path, n = sys.argv[1], int(sys.argv[2])
    total, incl = annotate(path, True)
    _, self_cost = annotate(path, False)
    graph = callers_graph(path)

    def family_of(fn):
        for i, (_, regexes) in enumerate(FAMILIES):
            if any(re.search(r, fn) for r in regexes):
                return i
        return None

    fam_of = {fn: family_of(fn) for fn in set(incl) | set(graph)}
    # Entry functions of a family: members not called by another member of the same family
    # (so recursion / nested members are not counted twice).
    fam_cost = [0] * len(FAMILIES)
    for fn, i in fam_of.items():
        if i is None or fn not in incl:
            continue
        own = incl[fn]
        # Subtract what this member spends in other families' entries and in members of
        # its own family (counted as their own entries below only if not nested).
        nested_same = 0
        for callee, c in graph.get(fn, {}).items():
            j = fam_of.get(callee)
            if j is not None and callee != fn:
                own -= c
                if j == i:
                    nested_same += c
        fam_cost[i] += own
    claimed = sum(fam_cost)
    memcpy = sum(c for fn, c in self_cost.items() if re.search(MEMCPY, fn))

    print(f"\ncallgrind: {total:,} instructions in the window = {total / n:,.0f} per message "
          f"({n:,} messages, all broker threads, user space only)")
    print(f"{'family':<50}{'instr/msg':>12}{'share':>8}")
    for (label, _), c in zip(FAMILIES, fam_cost):
        print(f"{label:<50}{c / n:>12,.0f}{100 * c / total:>7.1f}%")
    print(f"{'rest (event loop, idle threads, unclaimed)':<50}{(total - claimed) / n:>12,.0f}"
          f"{100 * (total - claimed) / total:>7.1f}%")
    print(f"{'  of all: memcpy/memmove self cost':<50}{memcpy / n:>12,.0f}"
          f"{100 * memcpy / total:>7.1f}%")
    print(f"\ntop 25 functions by self cost (instructions per message):")
    for fn, c in sorted(self_cost.items(), key=lambda kv: -kv[1])[:25]:
        print(f"{c / n:>10,.0f}  {fn[:130]}")
    print(f"\ntop 25 functions by inclusive cost (instructions per message):")
    for fn, c in sorted(incl.items(), key=lambda kv: -kv[1])[:25]:
        print(f"{c / n:>10,.0f}  {fn[:130]}")


if __name__ == "__main__":
    main()
