"""The garbage collector of a serving process: the startup heap frozen, and cyclic collections rarer.

CPython's cyclic collector scans every tracked object of a generation when it runs. A server's heap is
mostly what it built at startup (the MCP SDK's and pydantic's classes and schemas, the catalog, the
compiled validators and programs), none of it garbage, and each full collection walked all of it
again: under the RL load (256 sessions x 10 calls, rules programs answering) the collector took about a
quarter of the server's CPU, full collections of 120-130 ms every 1.5 s. Frozen (`gc.freeze`), the
startup heap is left out of every later collection; the sessions' own records are still scanned.

Nearly everything a call allocates is freed by reference counting the moment the call ends; the young
generation's threshold (700 allocations by default) mostly makes the collector look at live objects of
calls in flight. A larger one lets it run less often while still collecting the cycles a call leaves
(asyncio's tasks and futures, exceptions with their tracebacks).
"""

from __future__ import annotations

import gc

__all__ = ["settle_heap"]

# Young-generation threshold while serving: allocations less deallocations between collections.
YOUNG_THRESHOLD = 20_000


def settle_heap() -> None:
    """Call once a server has loaded everything it needs, just before it serves."""
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
