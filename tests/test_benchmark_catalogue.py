"""The catalogue benchmark measures what it says: its folders hold the environments asked for (all valid; in the
`distinct` variant, no two schemas or programs alike), and one measurement runs end to end at a tiny size."""

from __future__ import annotations

from pathlib import Path

from benchmarks.catalogue import FIRST_CALL, checkout, make_catalogue, measure_one, table
from benchmarks.servers import REPO
from sim_mcp.specs.registry import load_catalog


def test_a_folder_of_copies_holds_the_environments_asked_for(tmp_path: Path) -> None:
    names = make_catalogue(tmp_path, 6, "copies")
    catalog = load_catalog(tmp_path)
    assert catalog.errors == ()
    assert sorted(catalog.environments) == sorted(names)
    assert FIRST_CALL[0] in names
    assert all(environment.rules is not None for environment in catalog.environments.values())


def test_distinct_environments_share_no_schema_and_no_program(tmp_path: Path) -> None:
    make_catalogue(tmp_path, 8, "distinct")
    catalog = load_catalog(tmp_path)
    assert catalog.errors == ()
    schemas = [repr(tool.spec.input_schema) for tool in catalog.tools.values()]
    assert len(set(schemas)) == len(schemas)
    programs = [environment.rules for environment in catalog.environments.values()]
    assert len(set(programs)) == len(programs)


def test_another_side_is_a_folder_or_a_commit(tmp_path: Path) -> None:
    with checkout(str(tmp_path)) as folder:
        assert folder == tmp_path.resolve()
    with checkout("HEAD") as folder:
        assert (folder / "sim_mcp" / "cli" / "__main__.py").is_file()


def test_a_tiny_catalogue_is_measured_end_to_end(tmp_path: Path) -> None:
    make_catalogue(tmp_path, 2, "distinct")
    figures = measure_one(REPO, tmp_path, timeout=300)
    assert figures.check_s > 0
    assert 0 < figures.healthz_s <= figures.readyz_s
    assert figures.ready_cpu_s > 0
    assert figures.first_call_ms > 0
    assert figures.rss_mb > 10
    text = table({("distinct", 2, "this"): [figures]}, [2], ["distinct"], ["this"], 1)
    assert "| distinct | 2 | this |" in text
