"""Glossary terms named in free text: titles, slugs and aliases, tolerating typos."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .corpus import Corpus
from .text import term_key

_WORD = re.compile(r"[a-z0-9]+")
#: Shorthand visitors type for a word of a term's name: "oob mgmt" is "OOB management".
_SHORT = {"mgmt": "management", "mgmnt": "management", "mgt": "management"}
_PLURAL = re.compile(r"[a-rt-z0-9]s$")  # "aocs", "nics", "dpus"; not "loss" or "bus"
_STOP = frozenset("""a an and are as at be but by can do does for from how i if in into is it
its me my of on or our so than that the their them then there these they this to use used
using vs versus was we what when where which who why will with you your compare between same
difference thing things work works explain tell about""".split())


@dataclass(frozen=True)
class TermMatch:
    """A glossary term named in a question, exactly or with a typo."""

    slug: str
    said: str
    key: str
    exact: bool
    start: int


#: Texts whose term matches a TermMatcher remembers.
FIND_CACHE = 4096


class TermMatcher:
    """Finds glossary terms (titles, slugs, aliases) in free text, tolerating typos."""

    def __init__(self, corpus: Corpus, vocabulary: set[str], plain: frozenset[str] = frozenset()):
        # Two tables: glossary terms are matched first, so that a lesson whose title names
        # two terms ("InfiniBand vs RoCE") never swallows them; lesson keys ("training cost")
        # are matched on the words left over.
        self.tables: list[dict[str, str]] = [{}, {}]
        self.cased: dict[str, str] = {}
        for page in sorted(corpus, key=lambda p: p.slug):
            table = self.tables[0 if page.kind == "glossary" else 1]
            for name in (page.title, page.slug.replace("-", " "), *page.aliases):
                key = term_key(name)
                if key and key not in _STOP:
                    table.setdefault(key, page.slug)
                    if key in plain and name != key and name not in (key.upper(), key.title()):
                        # "ZeRO" names a page, "zero packets" does not: an alias that is also
                        # a plain word of the corpus prose matches only as written.
                        self.cased[key] = name
        self.compacts = [{k.replace(" ", ""): v for k, v in t.items()} for t in self.tables]
        self.vocabulary = vocabulary
        self._fuzzy_keys = [k for k in self.compacts[0] if len(k) >= 5]
        # The typo search reads only keys of about the word's length and with its figures.
        self._fuzzy_by: dict[tuple[int, tuple[str, ...]], list[tuple[int, str]]] = {}
        for n, key in enumerate(self._fuzzy_keys):
            self._fuzzy_by.setdefault((len(key), tuple(re.findall(r"\d+", key))), []).append(
                (n, key))
        self._short_keys = [k for k in self.compacts[0] if len(k) == 4]
        # One question's text is searched several times (its subject, its shape, the FAQ
        # questions near it), and FAQ questions recur across visitors: remember the answers.
        self._found: dict[str, tuple[TermMatch, ...]] = {}
        self._typos: dict[str, str | None] = {}

    def find(self, text: str) -> list[TermMatch]:
        """Return the terms named in the text, longest first where they overlap, in order."""
        found = self._found.get(text)
        if found is None:
            found = tuple(self._find(text))
            if len(self._found) >= FIND_CACHE:
                self._found.clear()  # a crude bound: the cache refills from the next questions
            self._found[text] = found
        return list(found)

    # Complexity 13: the exact and fuzzy passes share their bookkeeping, so they stay together.
    def _find(self, text: str) -> list[TermMatch]:  # noqa: C901
        tokens = [(_SHORT.get(m.group(0), m.group(0)), m.start())
                  for m in _WORD.finditer(text.lower())]
        taken: set[int] = set()
        found: list[TermMatch] = []

        def exact(sizes: tuple[int, ...]) -> None:
            for table, compact_table in zip(self.tables, self.compacts, strict=True):
                for size in sizes:
                    for i in range(len(tokens) - size + 1):
                        span = range(i, i + size)
                        if taken.intersection(span):
                            continue
                        words = [t for t, _ in tokens[i:i + size]]
                        key = " ".join(words)
                        slug = table.get(key) or compact_table.get("".join(words))
                        if slug is None and _PLURAL.search(words[-1]):
                            # "aocs", "dpus": a plural names the term
                            slug = table.get(key[:-1]) or compact_table.get("".join(words)[:-1])
                        if key in self.cased and self.cased[key] not in text:
                            slug = None
                        if slug is not None:
                            taken.update(span)
                            found.append(TermMatch(slug, " ".join(words), " ".join(words),
                                                   True, tokens[i][1]))

        def fuzzy(sizes: tuple[int, ...]) -> None:
            for size in sizes:
                for i in range(len(tokens) - size + 1):
                    span = range(i, i + size)
                    words = [t for t, _ in tokens[i:i + size]]
                    if taken.intersection(span) or any(w in _STOP or len(w) < 2 for w in words) \
                            or (size == 1 and words[0] in self.vocabulary):
                        # ...nor a lone letter ("nvidia's" -> "nvidia s" is no typo of
                        # "NVIDIA GDS")
                        continue
                    if all(w in self.vocabulary for w in words) and any(
                            w in self.tables[0] or w in self.tables[1] for w in words):
                        # a term spelt right beside a plain word is no typo of a longer
                        # name: "infiniband out" is not "InfiniBand MTU" two edits away
                        continue
                    key = self._typo_of("".join(words))
                    if key is not None:
                        taken.update(span)
                        found.append(TermMatch(self.compacts[0][key], " ".join(words), key,
                                               False, tokens[i][1]))

        # Longer names first; a misspelt multi-word name ("bisecton bandwidth") is tried
        # before the single words inside it ("bandwidth") can claim their own pages.
        exact((4, 3, 2))
        fuzzy((3, 2))
        exact((1,))
        fuzzy((1,))
        found.sort(key=lambda m: m.start)
        return found

    def _typo_of(self, word: str) -> str | None:
        """Return the glossary key a misspelt word stands for, if it is one edit away."""
        if word not in self._typos:
            if len(self._typos) >= FIND_CACHE:
                self._typos.clear()
            self._typos[word] = self._nearest_key(word)
        return self._typos[word]

    def _nearest_key(self, word: str) -> str | None:
        from rapidfuzz.distance import DamerauLevenshtein

        if len(word) < 4:
            return None
        if len(word) == 4:
            # Four letters: only a swap of two letters ("rdam"), too many words are one
            # substitution away from a four-letter term.
            for key in self._short_keys:
                if sorted(key) == sorted(word) and DamerauLevenshtein.distance(key, word) == 1:
                    return key
            return None
        edits = 1 if len(word) < 9 else 2
        best = None
        # "400g transceiver" is no typo of "800g transceiver": the figures must be the same
        digits = tuple(re.findall(r"\d+", word))
        near = sorted(pair for size in range(len(word) - edits, len(word) + edits + 1)
                      for pair in self._fuzzy_by.get((size, digits), ()))
        for _, key in near:
            d = DamerauLevenshtein.distance(word, key, score_cutoff=edits)
            if d <= edits and (best is None or d < best[1]):
                best = (key, d)
        return best[0] if best else None
