"""The four-way fidelity driver's tables, from reports `bench-fidelity` wrote against a scripted provider:
the match figures per run, and why the model's answers were rejected."""

from __future__ import annotations

from pathlib import Path

from benchmarks.fidelity_llm import tables
from sim_mcp.cli import main
from sim_mcp.testing import FakeProvider, reply_outcome
from tests.scripted_tickets import created_ticket
from tests.servers import BUNDLED_SPECS, REPO

TICKETS = REPO / "benchmarks" / "fidelity" / "tickets.yaml"


def bench(out: Path, *flags: str) -> None:
    """`bench-fidelity` as the driver runs it: from the reference's state, rules counted, a JSON report."""
    arguments = ["bench-fidelity", str(TICKETS), "--specs", str(BUNDLED_SPECS), "--reference", str(BUNDLED_SPECS)]
    out.parent.mkdir()
    assert main([*arguments, "--rules", "always", "--json", str(out), *flags]) == 0


def test_the_tables_count_matches_per_run_and_the_rejections_by_kind(fake: FakeProvider, tmp_path: Path) -> None:
    fake.script(
        reply_outcome("", is_error=True),  # rejected: an error needs its message
        created_ticket(),
        # Both answers to the second call rejected: a patch to a path the state lacks, twice.
        created_ticket([{"op": "replace", "path": "/nowhere/x", "value": 1}]),
        created_ticket([{"op": "replace", "path": "/nowhere/x", "value": 1}]),
    )
    # Later calls find no scripted reply: the provider fails, and they end as errors without a rejection.
    # The rules programs are not run, as the driver removes them from the specs.
    model = ["--backend", "openai", "--model", "fake-model", "--base-url", fake.openai_url]
    bench(
        tmp_path / "patch" / "tickets.json", *model, "--max-attempts", "2", "--provider-retries", "0", "--no-run-rules"
    )
    bench(tmp_path / "hand" / "tickets.json")

    printed = tables(tmp_path).splitlines()

    assert "Scenarios every run reached (1 of 1): tickets" in printed
    assert any(line.startswith("| (d) hand-written programs | 16 | 100.0% | 100.0% |") for line in printed)
    # The create matched; the rest failed or are the not-found answers the engine gives without the model.
    assert any(
        line.startswith("| (a) per-call LLM, patches | 16 | 31.2% | 68.8% | 5 calls: 20.0% / 0.0%") for line in printed
    )
    # By scenario, the state changes each model run made exact (the hand-written run is the reference).
    assert "| tickets | 16 | 5 | 0 |" in printed
    why = printed[-1].split(" | ")
    assert why[0] == "| (a) per-call LLM, patches"
    # 14 calls asked the model (the engine answered 2 as not found): 2 (3 answers rejected), then 12 while it
    # failed, each once.
    assert why[1:4] == ["14", "15", "13"]
    assert why[4] == "the model server failed 12, patch does not apply 2, error without a message 1 |"
