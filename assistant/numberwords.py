"""Counts written in words, read as digits in place.

"a dozen nodes", "forty GPUs", "ten days", "half a million tokens": the calculators' wording
rules read digits, so a count in words is rewritten as its digits, right-aligned and padded
with zeros to the words' own length ("forty" -> "00040"), and every position in the text
still lines up with the question as typed. Only a count followed (within two words) by what
it counts is rewritten: "ten times faster" stays as it is. "one" alone is left to the
wording rules, which read it where it is a count ("one GPU per node").

    >>> in_digits("a dozen nodes for ten days", r"(?:nodes?|days?)\\b")
    '0000012 nodes for 010 days'
"""

from __future__ import annotations

import re

_SMALL = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
          "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
          "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
          "seventy": 70, "eighty": 80, "ninety": 90}
_TIMES = {"dozen": 12, "hundred": 100}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_MULTIPLIERS = frozenset([*_TIMES, *_SCALES])
_WORDS = "|".join(sorted([*_SMALL, *_TIMES, *_SCALES, "half", "a", "an", "and"],
                         key=len, reverse=True))
# A run of number words: "a dozen", "twenty-four", "two hundred and fifty", "half a million".
_RUN = re.compile(rf"\b(?:{_WORDS})(?:[\s-](?:{_WORDS}))*\b", re.ASCII)


def value(words: str) -> float | None:
    """The number a run of number words says, or None when it says none ("a", "an and")."""
    total = current = 0.0
    said = half = False
    tokens = re.split(r"[\s-]+", words)
    for i, token in enumerate(tokens):
        if token in _SMALL:
            current, said = current + _SMALL[token], True
        elif token in _TIMES:
            current, said = (current or 1) * _TIMES[token], True
        elif token in _SCALES:
            total, current, said = total + (current or 1) * _SCALES[token], 0.0, True
        elif token == "half":
            # "half a million": half of what follows; "half" alone is not a count
            if i + 1 >= len(tokens) or tokens[i + 1] not in ("a", "an"):
                return None
            half = True
        elif token in ("a", "an") and i and tokens[i - 1] not in ("half",):
            return None  # "two a ..." is not one number
    if not said:
        return None
    return (total + current) * (0.5 if half else 1)


def in_digits(lower: str, counted: str) -> str:
    """Rewrite each count in words that `counted` (a regex) follows as its digits, in place."""
    ahead = re.compile(rf"\s(?:[a-z0-9-]+\s){{0,2}}(?:{counted})", re.ASCII)

    def digits(m: re.Match[str]) -> str:
        words, lead = m.group(0), 0
        # "a"/"an" count only before a multiplier: "a dozen", but "an eight-GPU node"
        first, _, rest = words.partition(" ")
        if first in ("a", "an", "and") and rest.split("-")[0].split(" ")[0] not in _MULTIPLIERS:
            words, lead = rest, len(first) + 1
        # "per million tokens" names a unit, not a count: a multiplier needs its count
        number = value(words) if words.split(" ")[0] not in _MULTIPLIERS else None
        if number is None or words == "one" or not ahead.match(lower, m.end()):
            return m.group(0)
        text = str(int(number)) if float(number).is_integer() else str(number)
        if len(text) > len(words):
            return m.group(0)
        return m.group(0)[:lead] + text.rjust(len(words), "0")

    return _RUN.sub(digits, lower)
