#!/usr/bin/env python3
"""Tests of scripts/check_layering.py on tiny fake trees (run by CTest, label `unit`)."""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                      "check_layering.py")

TABLE = """\
# Layers
<!-- layers:begin -->
```text
module 0 base      base/**      : -
module 1 io        io/**        : base
module 2 store/dispatch store/dispatch/** : base io
module 3 store/cq  store/cq/**  : base io store/dispatch/request.h
module 4 store     store/*      : base io store/cq store/dispatch
module 2 protocol  protocol/**  : base
module 3 net       net/**       : base protocol
module 5 namesrv   namesrv/**   : base protocol net
module 5 broker    broker/**    : base io protocol net store/message_store.h
{extra}
```
<!-- layers:end -->
"""

CLEAN_TREE = {
    "base/status.h": '#include <string>\n',
    "base/status.cc": '#include "base/status.h"\n#include "status.h"\n',
    "io/fs.h": '#include "base/status.h"\n',
    "store/dispatch/request.h": '#include "io/fs.h"\n',
    "store/dispatch/dispatcher.h": '#include "store/dispatch/request.h"\n',
    "store/cq/cq.h": '#include "store/dispatch/request.h"\n',
    "store/message_store.h": '#include "store/cq/cq.h"\n#include "store/dispatch/dispatcher.h"\n',
    "protocol/frame.h": '#include "base/status.h"\n',
    "net/server.h": '#include "protocol/frame.h"\n',
    "namesrv/ns.cc": '#include "net/server.h"\n',
    "broker/service/send.cc": '#include "store/message_store.h"\n#include "net/server.h"\n',
    "broker/README.md": "#include \"namesrv/ns.h\" is text, not code\n",
}


class CheckLayeringTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = self._tmp.name
        self.addCleanup(self._tmp.cleanup)

    def run_check(self, tree, extra=""):
        for rel, text in tree.items():
            path = os.path.join(self.root, "src", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        table = os.path.join(self.root, "architecture.md")
        with open(table, "w") as f:
            f.write(TABLE.format(extra=textwrap.dedent(extra)))
        p = subprocess.run([sys.executable, SCRIPT, "--src", os.path.join(self.root, "src"),
                            "--table", table], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def with_file(self, rel, text):
        tree = dict(CLEAN_TREE)
        tree[rel] = text
        return tree

    # Failure paths first.
    def test_sideways_include_fails_with_file_line_include_and_rule(self):
        tree = self.with_file("namesrv/ns.cc",
                              '#include "net/server.h"\n\n#include "broker/service/send.h"\n')
        rc, out, _ = self.run_check(tree)
        self.assertEqual(rc, 1)
        self.assertIn('src/namesrv/ns.cc:3: #include "broker/service/send.h"', out)
        self.assertIn("namesrv (L5) may not include broker (L5)", out)

    def test_upward_include_fails(self):
        rc, out, _ = self.run_check(self.with_file("protocol/frame.h", '#include "net/server.h"\n'))
        self.assertEqual(rc, 1)
        self.assertIn("protocol (L2) may not include net (L3)", out)

    def test_base_may_include_nothing_of_ours(self):
        rc, out, _ = self.run_check(self.with_file("base/status.h", '  #  include "io/fs.h"\n'))
        self.assertEqual(rc, 1)
        self.assertIn('src/base/status.h:1: #include "io/fs.h"', out)

    def test_store_including_protocol_fails(self):
        rc, out, _ = self.run_check(self.with_file("store/cq/cq.h", '#include "protocol/frame.h"\n'))
        self.assertEqual(rc, 1)
        self.assertIn("store/cq (L3) may not include protocol (L2)", out)

    def test_a_header_allowance_does_not_open_its_module(self):
        rc, out, _ = self.run_check(
            self.with_file("store/cq/cq.h", '#include "store/dispatch/dispatcher.h"\n'))
        self.assertEqual(rc, 1)
        self.assertIn("store/cq (L3) may not include store/dispatch", out)

    def test_broker_sees_only_the_facade_headers_it_lists(self):
        tree = self.with_file("broker/b.cc", '#include "store/cq/cq.h"\n')
        rc, out, _ = self.run_check(tree)
        self.assertEqual(rc, 1)
        self.assertIn('src/broker/b.cc:1: #include "store/cq/cq.h"', out)

    def test_file_no_module_covers_fails(self):
        rc, out, _ = self.run_check(self.with_file("client/producer.cc", '#include "net/server.h"\n'))
        self.assertEqual(rc, 1)
        self.assertIn("src/client/producer.cc: no module", out)

    def test_include_resolving_to_no_module_fails(self):
        rc, out, _ = self.run_check(self.with_file("io/fs.cc", '#include "rapidjson/reader.h"\n'))
        self.assertEqual(rc, 1)
        self.assertIn("resolves to no module", out)

    def test_exception_without_todo_is_a_table_error(self):
        tree = self.with_file("namesrv/ns.cc", '#include "broker/service/send.h"\n')
        rc, _, err = self.run_check(tree, "except namesrv/ns.cc broker/service/send.h # because\n")
        self.assertEqual(rc, 2)
        self.assertIn("TODO", err)

    def test_table_allowing_upwards_is_rejected(self):
        rc, _, err = self.run_check(CLEAN_TREE, "module 1 log log/** : base io\n")
        self.assertEqual(rc, 2)
        self.assertIn("log (L1) allows io (L1)", err)

    def test_table_allowing_an_unknown_module_is_rejected(self):
        rc, _, err = self.run_check(CLEAN_TREE, "module 9 apps apps/** : base brokr\n")
        self.assertEqual(rc, 2)
        self.assertIn("unknown module 'brokr'", err)

    def test_missing_block_is_a_table_error(self):
        table = os.path.join(self.root, "empty.md")
        with open(table, "w") as f:
            f.write("# no table here\n")
        p = subprocess.run([sys.executable, SCRIPT, "--src", self.root, "--table", table],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)

    # Passing trees.
    def test_clean_tree_passes(self):
        rc, out, err = self.run_check(CLEAN_TREE)
        self.assertEqual((rc, out), (0, ""), err)

    def test_exception_with_todo_allows_exactly_that_include(self):
        tree = self.with_file("namesrv/ns.cc", '#include "broker/service/send.h"\n')
        extra = "except namesrv/ns.cc broker/service/send.h  # TODO(x): move it\n"
        rc, out, err = self.run_check(tree, extra)
        self.assertEqual(rc, 0, out + err)
        tree["namesrv/other.cc"] = '#include "broker/service/send.h"\n'
        rc, out, _ = self.run_check(tree, extra)
        self.assertEqual(rc, 1)
        self.assertIn("src/namesrv/other.cc:1:", out)

    def test_stale_exception_warns_but_passes(self):
        extra = "except namesrv/ns.cc broker/x.h  # TODO(x): gone already\n"
        rc, _, err = self.run_check(CLEAN_TREE, extra)
        self.assertEqual(rc, 0)
        self.assertIn("stale exception", err)

    def test_continuation_lines_extend_the_allowed_list(self):
        tree = self.with_file("apps/main.cc", '#include "broker/service/send.h"\n'
                                              '#include "namesrv/ns.h"\n')
        rc, out, err = self.run_check(tree, "module 9 apps apps/** : base \\\n    broker namesrv\n")
        self.assertEqual(rc, 0, out + err)


if __name__ == "__main__":
    unittest.main()
