"""`shorten`: the one form in which long text is cut for people, prompts and trajectories."""

from __future__ import annotations

from sim_mcp.text import shorten


def test_text_that_fits_comes_back_unchanged() -> None:
    assert shorten("abc", 3) == "abc"
    assert shorten("", 0) == ""


def test_longer_text_is_cut_and_says_how_much_was_left_out() -> None:
    assert shorten("abcdef", 2) == "ab … (4 more characters)"
    assert shorten("x" * 12_345, 0, separator="\n") == "\n… (12,345 more characters)"
