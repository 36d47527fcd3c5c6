"""The serving process's collector settings (server/heap.py), in a fresh interpreter: they are process-wide."""

from __future__ import annotations

import json
import subprocess
import sys

from sim_mcp.server.heap import YOUNG_THRESHOLD

_PROBE = """
import gc, json
import sim_mcp.server.http  # what a server has imported before it serves
from sim_mcp.server.heap import settle_heap
before = gc.get_threshold()
settle_heap()
garbage = [[]]
garbage[0].append(garbage)  # a cycle made after settling: still collectable
del garbage
print(json.dumps({"before": before, "after": gc.get_threshold(), "frozen": gc.get_freeze_count(),
                  "collected": gc.collect()}))
"""


def test_settle_heap_freezes_the_startup_heap_and_still_collects_later_cycles() -> None:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True).stdout
    found = json.loads(out)
    assert found["frozen"] > 10_000  # the imported SDKs' objects, left out of every later collection
    assert found["after"][0] == max(found["before"][0], YOUNG_THRESHOLD)
    assert found["after"][1:] == found["before"][1:]
    assert found["collected"] >= 1
