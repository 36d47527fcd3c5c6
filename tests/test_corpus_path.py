"""Where the tests find the shared specs corpus: `SIM_MCP_CORPUS`, else `shared/specs-corpus` beside the
checkout or any folder above it, so that a clone anywhere (CI's included) finds the copy laid beside it."""

from __future__ import annotations

from pathlib import Path

from tests.servers import CORPUS_VARIABLE, corpus_candidates, find_corpus


def test_the_variable_wins(tmp_path: Path) -> None:
    given = tmp_path / "my-corpus"
    given.mkdir()
    assert find_corpus(tmp_path / "repo", {CORPUS_VARIABLE: str(given)}) == given.resolve()


def test_found_beside_the_clone_or_any_folder_above_it(tmp_path: Path) -> None:
    repo = tmp_path / "ci" / "run-1" / "clone"
    repo.mkdir(parents=True)
    beside_a_parent = tmp_path / "ci" / "shared" / "specs-corpus"
    beside_a_parent.mkdir(parents=True)
    assert find_corpus(repo, {}) == beside_a_parent
    beside = repo.parent / "shared" / "specs-corpus"
    beside.mkdir(parents=True)
    assert find_corpus(repo, {}) == beside  # the nearest wins


def test_absent_names_the_first_place_looked(tmp_path: Path) -> None:
    repo = tmp_path / "nowhere" / "clone"
    repo.mkdir(parents=True)
    assert find_corpus(repo, {}) == repo / "shared" / "specs-corpus"
    assert corpus_candidates(repo, {})[1] == repo.parent / "shared" / "specs-corpus"
