"""The world-size benchmark measures what it says: every way answers the RL load's calls on a seeded world
without an error (a failed call ends the run), and the world it seeds is the size it names."""

from __future__ import annotations

import json

import pytest

from benchmarks.cpu_in_process import WAYS, _measure, seeded_tickets
from benchmarks.servers import fake_llm


def test_the_seeded_world_has_the_tickets_asked_for() -> None:
    world = seeded_tickets(40)
    assert len(world["tickets"]) == 40
    assert len(set(world["tickets"])) == 40
    assert 400 * 40 < len(json.dumps(world)) < 600 * 40


@pytest.mark.parametrize("way", WAYS)
async def test_each_way_answers_a_seeded_world(way: str) -> None:
    with fake_llm(0.0) as fake:
        cpu_ms = await _measure(2, f"{fake.url}/v1", "memory", False, way, records=30)
    assert cpu_ms > 0
