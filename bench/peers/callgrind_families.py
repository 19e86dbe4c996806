#!/usr/bin/env python3
"""Instructions per message by function family, from one callgrind dump of the broker.

  callgrind_families.py CALLGRIND_OUT MESSAGES

Reads the raw dump (self cost of every function, and the inclusive cost of every
caller -> callee edge). Each function is put in a family by its name (FAMILIES below,
first match wins). A function in no family (malloc, free, memcpy, memchr, STL helpers,
hashing) has its self cost charged to the families of its callers, in proportion to what
each caller spent calling it, up the call graph until a family is reached: so "record
encode" includes the memcpy of the body it does, and "properties" the allocations it
makes. (Callgrind keeps caller -> callee pairs, not whole stacks, so this split is an
approximation for helpers called from several families.) The families add up to the
total. Also prints the allocator's and memcpy's share and the top self costs.
bench/peers/profile_produce.sh runs it; docs/benchmarks-produce.md "Produce path profile" reads it.
"""
import re
import sys

FAMILIES = [
    ("frame read + parse (OnRead, DecodeFrame)",
     r"net::Connection::(OnRead|DoRead|ProcessBuffer)|protocol::DecodeFrame\(|"
     r"reactive_socket_recv_op|socket_ops::non_blocking_recv|DoRead\(\)::\{lambda"),
    ("header decode (JSON scanner)",
     r"JsonSubsetScanner|HeaderHandler|DecodeJsonHeader|TryDecodeJsonHeaderFast|"
     r"DecodeBinaryHeader|DecodeRocketMqHeader"),
    ("ext-field map (ExtFields, Get*/Set*)",
     r"protocol::ExtFields::|RemotingCommand::(Get|Set|Find|Require)\w*\(|"
     r"protocol::\(anonymous namespace\)::ToInt\w*\(|protocol::ParseJava\w*\("),
    ("send header -> SendRequest (OnSend)",
     r"SendMessageRequest(Header|View)::Decode|RemotingFrontend::OnSend\("),
    ("response build + encode",
     r"BuildSendResponse|SendAnswerFrame|SendService::BuildResult|protocol::EncodeFrame\(|"
     r"EncodeJsonHeader|"
     r"AppendJson\w*\(|EncodeOffsetMsgId|SendMessageResponseHeader|"
     r"net::Connection::(SendResponse|Send|Enqueue)\(|protocol::MakeResponse|MarkResponse|"
     r"EncodeBinaryHeader|EncodeRocketMqHeader"),
    ("properties parse/search/rebuild",
     r"format::PropertiesBuilder::|format::FindPropert|format::\(anonymous namespace\)::"
     r"ForEachEntry|format::(Parse|Encode)Properties"),
    ("validation, topic, hooks (SendService)",
     r"broker::SendService::|\w+Hook::BeforePut|DraftMessage|format::ValidateForStore|"
     r"TopicConfigManager|broker::Reputter::|RequestContext|ProducerManager|"
     r"MessageStore::AwaitDurability|RuntimeStats|BrokerStats|StatsItem"),
    ("record encode (EncodeRecord)",
     r"format::EncodeRecord\(|format::EncodedRecordSize|format::EncodeHost|HostAddress::"),
    ("commit log append (PutMessage, CommitLog)",
     r"MessageStore::PutMessage|CommitLog::|MappedFile::(Append|Write|Buffer)"),
    ("socket writes (DoWrite, asio send)",
     r"net::Connection::DoWrite|reactive_socket_send_op|write_op<|socket_ops::(send|non_blocking_send)"),
    ("dispatch: consume queue + index",
     r"rocketstore::Dispatcher::|IndexService::|IndexFile::|ConsumeQueue\w*::|"
     r"BuildDispatchRequest|format::DecodeRecord|MessageStore::DispatchOnce|"
     r"TimerIndex::Dispatch|DelayLevelTable::TagsCode|JavaStringHash"),
    ("segment prepare + flush services",
     r"MappedFileQueue::|AsyncFlusher|GroupCommit|Flush\w*\(|Checkpoint|ServiceRunner::"),
    ("event loop (asio scheduler, strands, timers)",
     r"asio::detail::(scheduler|strand_executor_service|epoll_reactor|executor_op|"
     r"wait_handler|timer_queue|conditionally_enabled)|any_executor_base|ArmIdleTimer"),
]
ALLOC = r"^(malloc|free|cfree|_int_malloc|_int_free|malloc_consolidate|operator new|" \
        r"operator delete|tcache|_int_realloc|realloc)"
MEMCPY = r"^(__memcpy|__memmove|memcpy|memmove)"
# Frames that callgrind charges with their callees' cost when the counters are zeroed
# while they are on the stack; they are no family's and their "self" cost is not real.
STACK_BASE = r"^(clone|start_thread|0x[0-9a-f]+$|std::thread::_State_impl|\(below main\))"


def parse(path):
    names = {"fn": {}, "cfn": {}}
    self_cost = {}
    edges = {}  # (caller, callee) -> inclusive cost of the calls
    fn = cfn = None
    after_calls = False
    total = None
    name_ids = {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("totals:"):
                total = int(line.split()[1])
                continue
            m = re.match(r"^(fn|cfn)=\((\d+)\)(?: (.*))?$", line)
            if m:
                kind, ident, name = m.groups()
                if name is not None:
                    name_ids[ident] = name
                name = name_ids.get(ident, f"?{ident}")
                if kind == "fn":
                    fn = name
                else:
                    cfn = name
                continue
            if line.startswith("calls="):
                after_calls = True
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            parts = line.split()
            if len(parts) < 2 or fn is None:
                continue
            cost = int(parts[1])
            if after_calls:
                after_calls = False
                if cfn is not None:
                    edges[(fn, cfn)] = edges.get((fn, cfn), 0) + cost
            else:
                self_cost[fn] = self_cost.get(fn, 0) + cost
    if total is None:
        total = sum(self_cost.values())
    return total, self_cost, edges


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: callgrind_families.py CALLGRIND_OUT MESSAGES")
    path, n = sys.argv[1], int(sys.argv[2])
    total, self_cost, edges = parse(path)
    compiled = [(label, re.compile(rx)) for label, rx in FAMILIES]
    labels = [label for label, _ in FAMILIES] + ["rest (no family reached)"]
    rest = len(FAMILIES)

    def family(fn):
        for i, (_, rx) in enumerate(compiled):
            if rx.search(fn):
                return i
        return None

    callers = {}
    for (a, b), c in edges.items():
        if a != b:
            callers.setdefault(b, []).append((a, c))

    memo = {}

    def shares(fn, depth=0, seen=()):
        """Fractions of fn's self cost per family index."""
        if fn in memo:
            return memo[fn]
        i = family(fn)
        if i is not None:
            return {i: 1.0}
        if re.search(STACK_BASE, fn) or depth > 12 or fn in seen:
            return {rest: 1.0}
        ups = [(a, c) for a, c in callers.get(fn, []) if c > 0]
        weight = sum(c for _, c in ups)
        if weight == 0:
            return {rest: 1.0}
        out = {}
        for a, c in ups:
            for k, v in shares(a, depth + 1, seen + (fn,)).items():
                out[k] = out.get(k, 0.0) + v * c / weight
        if depth == 0:
            memo[fn] = out
        return out

    fam = [0.0] * (len(FAMILIES) + 1)
    for fn, c in self_cost.items():
        for k, v in shares(fn).items():
            fam[k] += c * v
    alloc = sum(c for fn, c in self_cost.items() if re.search(ALLOC, fn))
    memcpy = sum(c for fn, c in self_cost.items() if re.search(MEMCPY, fn))

    print(f"callgrind: {total:,} instructions in the window = {total / n:,.0f} per message "
          f"({n:,} messages; all broker threads; user space only)")
    print(f"{'family':<48}{'instr/msg':>11}{'share':>8}")
    for label, c in zip(labels, fam):
        print(f"{label:<48}{c / n:>11,.0f}{100 * c / total:>7.1f}%")
    print(f"{'(sum)':<48}{sum(fam) / n:>11,.0f}{100 * sum(fam) / total:>7.1f}%")
    print(f"{'across families: malloc/free/new/delete':<48}{alloc / n:>11,.0f}"
          f"{100 * alloc / total:>7.1f}%")
    print(f"{'across families: memcpy/memmove':<48}{memcpy / n:>11,.0f}"
          f"{100 * memcpy / total:>7.1f}%")
    print("\ntop 30 functions by self cost (instructions per message, family):")
    shown = 0
    for fn, c in sorted(self_cost.items(), key=lambda kv: -kv[1]):
        if re.search(STACK_BASE, fn):
            continue
        i = family(fn)
        tag = labels[i].split(" (")[0] if i is not None else "-> callers"
        print(f"{c / n:>9,.0f}  {fn[:110]}  [{tag}]")
        shown += 1
        if shown == 30:
            break


if __name__ == "__main__":
    main()
