"""`shorten`: the one form in which long text is cut for people, prompts and trajectories; `shown` quotes a value
as JSON in that form; `clip` cuts a label."""

from __future__ import annotations

from sim_mcp.text import clip, shorten, shown


def test_text_that_fits_comes_back_unchanged() -> None:
    assert shorten("abc", 3) == "abc"
    assert shorten("", 0) == ""


def test_longer_text_is_cut_and_says_how_much_was_left_out() -> None:
    assert shorten("abcdef", 2) == "ab … (4 more characters)"
    assert shorten("x" * 12_345, 0, separator="\n") == "\n… (12,345 more characters)"


def test_a_value_is_shown_as_one_line_of_json_cut_like_text() -> None:
    assert shown({"é": [1, 2]}, 80) == '{"é": [1, 2]}'
    assert shown("x" * 10, 4) == '"xxx … (8 more characters)'
    assert shown({1, 2}.__class__, 80) == "\"<class 'set'>\""  # what JSON cannot hold: its str


def test_a_label_is_clipped_to_its_limit() -> None:
    assert clip("abcdef", 6) == "abcdef"
    assert clip("abcdefg", 6) == "abc..."
    assert len(clip("y" * 100, 60)) == 60
