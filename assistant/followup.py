"""Follow-ups: what a question refers back to in the conversation ("does it work on RoCE
too?", "what about the latency?"), and a short question that asks the previous one again of
a new attribute ("and for 800g?")."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .compose import wants_comparison
from .polarity import qualifiers
from .retrieve import MEASURES

if TYPE_CHECKING:
    from .corpus import Corpus
    from .inputs import Message
    from .terms import TermMatcher

_OR_CLAUSE = re.compile(r"\bor\s+(can|could|do|does|did|is|are|should|would|will|must|may|"
                        r"i|we|you|it|they)\b")
_PRONOUN = re.compile(r"\b(it|its|it's|they|them|their|this|that|these|those|one|ones|he|she)\b"
                      # "this weekend", "that time", "one day": a time, not a reference
                      r"(?!\s+(?:weekend|week|month|year|morning|afternoon|evening|time|day|"
                      r"moment|summer|winter|quarter)s?\b)", re.I)
# "does RoCE need one too?": an object "one" stands for the previous turn's thing, never for
# the term named in the same clause.
_ONE = re.compile(r"\b(need|needs|have|has|use|uses|require|requires|run|runs|get|want)"
                  r"\s+(one|ones)\b(?!\s+of\b)", re.I)
# "what about the latency?" after RDMA: a measure asked of the previous turn's thing.
_ABOUT = re.compile(r"^(and|so|ok(ay)?,?)?\s*(what|how)\s+about\b|^and\s+(the|its)\s+\w+\s*\??$",
                    re.I)
#: Comparison words other than a bare "or".
_COMPARING = re.compile(r"\b(vs\.?|versus|compar\w*|differen\w*|differ|same\s+(thing\s+)?as|"
                        r"better|faster|cheaper|slower|instead\s+of|rather\s+than)\b", re.I)
#: "and for 800g?", "what about the B200?", "same for gen6": one attribute, asked again.
_ATTRIBUTE = re.compile(r"^(and|so|ok(ay)?|but)?,?\s*(what|how)?\s*(about|for|with|on|at|"
                        r"same\s+for)\s+(the\s+|an?\s+)?(?P<what>[\w./ -]{2,24}?)\s*\??$", re.I)


class FollowUps:
    """Reads a question against the conversation so far."""

    def __init__(self, corpus: Corpus, matcher: TermMatcher):
        self.corpus = corpus
        self.matcher = matcher

    def terms(self, text: str) -> list[str]:
        """The pages a text names, first named first."""
        slugs: list[str] = []
        for match in self.matcher.find(text):
            if match.slug not in slugs:
                slugs.append(match.slug)
        return slugs

    def resolve(self, q: str, terms: list[str], history: list[Message], page: str | None
                 ) -> tuple[str | None, list[str]]:
        """Work out what the question is about: its own terms, the history's, or the page's."""
        pronoun = _PRONOUN.search(q)
        elliptic = bool(pronoun) or len(q.split()) <= 4
        previous = self.previous_subject(history, page)
        glossary = [t for t in terms if self.corpus.pages[t].kind == "glossary"]
        compare: list[str] = []
        if wants_comparison(q) and not self._or_of_something_else(q):
            candidates = list(glossary)
            if len(candidates) == 1 and elliptic and previous and previous not in candidates:
                candidates.insert(0, previous)
            if len(candidates) >= 2:
                compare = candidates[:2]
        named = (glossary or terms or [None])[0]
        if named is None:
            # "does it work between servers too?": the previous turn's term. A longer
            # question with no term keeps the previous term only as a hint (see _retrieve).
            return (previous if elliptic else None), compare
        if (previous and previous not in glossary and _ABOUT.search(q)
                and all(t in MEASURES for t in glossary)):
            return previous, compare
        first_term = min((m.start for m in self.matcher.find(q)), default=len(q))
        # A pronoun that cannot mean the term named here means the previous one: "does it
        # work on RoCE too?" after SHARP ("it" comes before RoCE), "does RoCE need one too?".
        refers_back = (pronoun and pronoun.start() < first_term) or _ONE.search(q)
        if previous and previous not in terms and refers_back:
            return previous, compare
        return named, compare

    def _or_of_something_else(self, q: str) -> bool:
        """True when the only comparison word is an "or" that does not join two terms: "is
        PFC required for RoCE v2 *or optional*" asks about PFC, not PFC against RoCE."""
        if _COMPARING.search(q.replace(" or ", " ")):
            return False
        starts = sorted((m.start, m.start + len(m.said)) for m in self.matcher.find(q.lower()))
        # "is PFC required for RoCE *or can I* get away with just ECN": an "or" that opens a
        # clause of its own joins two questions, not the two terms around it.
        return not any(" or " in (between := q.lower()[a[1]:b[0] + 1])
                       and not _OR_CLAUSE.search(between)
                       for a, b in zip(starts, starts[1:], strict=False))

    def previous_subject(self, history: list[Message], page: str | None) -> str | None:
        """The term of the latest turn that names one (the visitor's first), else the page."""
        for message in reversed(history):
            if message.role == "user" and (terms := self.terms(message.content)):
                return terms[0]
        for message in reversed(history):
            if terms := self.terms(message.content):
                return terms[0]
        return page

    def ask_again(self, text: str, history: list[Message]) -> str | None:
        """A short follow-up that changes one attribute ("and for 800g?", "what about B200?")
        asks the previous question of it: the previous question with that attribute put in
        place of its own ("how much is a 400g optic" -> "how much is a 800g optic")."""
        previous = next((m.content for m in reversed(history) if m.role == "user"), None)
        match = _ATTRIBUTE.match(text)
        if previous is None or match is None:
            return None
        new = match.group("what").strip()
        asked = qualifiers(new)
        if not asked:
            return None
        # any pair of the two words' qualifiers: a set's first member changes with the
        # process's hash seed, and so would the question asked ("p5.48xlarge" is "p5" and "48")
        old = [w for w in re.findall(r"[\w./-]+", previous)
               if any(_same_kind(a, b) for a in qualifiers(w) for b in asked)]
        return (previous.replace(old[0], new, 1) if old
                else f"{previous.rstrip(' ?')} for {new}")


def _same_kind(a: str, b: str) -> bool:
    """True if two qualifiers are of one kind: two speeds ("400g", "800g"), or two names
    whose letters agree up to the digits ("h100", "b200"; "gen5", "gen6"; "v1", "v2")."""
    speed = re.compile(r"^\d+g$")
    if speed.match(a) or speed.match(b):
        return bool(speed.match(a) and speed.match(b))
    letters = re.compile(r"^[a-z]+")
    la, lb = letters.match(a), letters.match(b)
    return bool(la and lb) and (la.group(0) == lb.group(0) or len(la.group(0)) == len(
        lb.group(0)) == 1)
