"""Counts in words read as digits in place (assistant/numberwords.py)."""

from __future__ import annotations

import pytest

from assistant.numberwords import in_digits, value

COUNTED = r"(?:gpus?|nodes?|servers?|days?|weeks?|tokens?)\b"


@pytest.mark.parametrize(("words", "number"), [
    ("a dozen", 12), ("forty", 40), ("twenty-four", 24), ("two hundred and fifty", 250),
    ("half a million", 500_000), ("three thousand", 3000), ("a", None), ("and", None),
])
def test_value_of_a_run_of_number_words(words, number):
    assert value(words) == number


@pytest.mark.parametrize(("text", "read"), [
    ("a dozen nodes for ten days", "0000012 nodes for 010 days"),
    ("forty gpus for six weeks", "00040 gpus for 006 weeks"),
    ("half a million tokens/s", "00000000500000 tokens/s"),
    ("an eight gpu node", "an 00008 gpu node"),
    # not counts: no counted thing follows, a unit named, or "one" (the wording rules' own)
    ("ten times faster", "ten times faster"),
    ("cost per million tokens", "cost per million tokens"),
    ("one gpu", "one gpu"),
])
def test_counts_in_words_become_digits_in_place(text, read):
    out = in_digits(text, COUNTED)
    assert out == read and len(out) == len(text)
