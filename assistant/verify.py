"""Checks an LLM's answer before a visitor sees it: citations, figures, leaks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .text import markers_in, numbers_in, split_answer_sentences


def flatten_numbers(value: object) -> list[float]:
    """Collect every number in a nested tool result or argument structure."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, str):
        return numbers_in(value)
    if isinstance(value, dict):
        return [n for v in value.values() for n in flatten_numbers(v)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in flatten_numbers(v)]
    return []


def _close(x: float, allowed: Iterable[float]) -> bool:
    for a in allowed:
        tolerance = max(abs(a) * 0.005, 0.01)
        # Rounded presentations: $0.5556 -> 0.56, 29,491.9 -> 29,492, 1,792.0 -> 1,792.
        if abs(x - a) <= tolerance or abs(x - round(a)) < 1e-9 or abs(x - round(a, 2)) < 1e-9:
            return True
    return False


@dataclass
class Verifier:
    """Checks sentences as they stream: every sentence cited, citations real, figures known."""

    passages: int
    allowed_numbers: list[float] = field(default_factory=list)
    canary: str = ""
    forbidden: tuple[str, ...] = ()

    def check(self, text: str) -> list[str]:
        """Return the problems of a piece of answer made of whole sentences."""
        problems: list[str] = []
        if self.canary and self.canary in text:
            problems.append("the answer contains the system prompt's canary")
        for phrase in self.forbidden:
            if phrase and phrase.lower() in text.lower():
                problems.append("the answer repeats the system prompt")
        for sentence in split_answer_sentences(text):
            markers = markers_in(sentence)
            if not markers:
                problems.append(f"sentence without a citation: {sentence[:60]!r}")
            for n in markers:
                if not 1 <= n <= self.passages:
                    problems.append(f"cites [{n}], but only {self.passages} passages were given")
            for x in numbers_in(sentence):
                if not _close(x, self.allowed_numbers):
                    problems.append(f"figure {x:g} is in no passage, question or tool result")
        return problems

