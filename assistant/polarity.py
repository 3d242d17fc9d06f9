"""Whether a corpus sentence settles a yes/no question, and which way.

The assistant opens with Yes, No or It depends only when a sentence it quotes says so. Four
readings count, strictest first; anything else leaves the question unsettled (it is then
answered with what the corpus says, and logged as a gap):

1. The sentence itself opens with Yes, No or It depends (an FAQ answer) and covers the
   question's terms and most of its words.
2. The sentence calls the question's claim a mistake ("A common mistake is assuming that
   SHARP is active on any InfiniBand fabric.") -> No.
3. One clause of the sentence negates the claim in so many words ("an iWARP adapter ...
   cannot exchange RDMA traffic with a RoCE adapter") and covers it -> No.
3b. The question claims "all" or "every" and a clause covering it says "only" -> No.
4. One clause restates the claim with no negation and no hedge, covering nearly every
   content word of the question -> Yes.

Example:
    >>> reading("A common mistake is assuming X is on by default.", covered=lambda t: 1.0)
    'No'
"""

from __future__ import annotations

import re
from collections.abc import Callable

POLAR_OPENING = re.compile(r"^(yes|no|it\s+depends)\b", re.I)
_MISTAKE = re.compile(
    r"\bmistake\s+is\s+(to\s+)?(assum|think|believ|expect|treat|read|call|confus|pick|choos|"
    r"divide|plan|compar|put|count|use|run|stretch|rely|mix|buy|spread|enabl|turn|set)\w*"
    r"|\bis\s+(also\s+)?an?\s+(\w+\s+)?mistake\b|\bit\s+is\s+a\s+myth\b", re.I)
_NEGATION = re.compile(r"\b(not|no|never|cannot|can't|doesn't|don't|isn't|aren't|won't|no\s+longer"
                       r"|neither|nor)\b", re.I)
_HEDGE = re.compile(r"\b(only|except|unless|but|although|though|while|whereas|may|might|"
                    r"sometimes|rarely|usually|often|some|most|partly|depends|if|mistake|"
                    r"instead|rather)\b", re.I)
_ONLY = re.compile(r"\b(only|just)\b", re.I)
_CLAUSES = re.compile(r"[;,:]\s+|\s+(?:but|while|whereas|although|so|because)\s+", re.I)

#: Share of the question's content words a sentence or clause must name for each reading
#: (it must name every glossary term of the question in any case: `covered` returns -1).
COVER_POLAR = 0.5
COVER_MISTAKE = 0.3
COVER_NEGATION = 0.5
COVER_AFFIRM = 0.75
#: How many words after "not", "cannot" ... a question word must appear in to be denied.
NEGATION_REACH = 6


def clauses(sentence: str) -> list[str]:
    """Split a sentence at commas, semicolons and conjunctions into its clauses."""
    return [c for c in _CLAUSES.split(sentence) if c and len(c.split()) >= 3]


def reading(sentence: str, covered: Callable[[str], float], negated: bool = False,
            closest: bool = False, terms_carry: bool = False,
            universal: bool = False) -> str | None:
    """Return "Yes", "No" or "" (the sentence opens with its own Yes/No/It depends) when a
    sentence settles the question, else None. `covered(text)` is the share (0..1) of the
    question's content words a text names, or -1 when it misses one of the question's terms;
    `negated` when the question itself is asked negatively; `closest` when the sentence is
    among the few closest to the question (a mistake named there needs no shared word);
    `terms_carry` when the sentence names two or more terms of the question, which then carry
    the claim ("does GPUDirect RDMA work with RoCE or only InfiniBand"); `universal` when the
    question claims "all", "every" or "any", which a clause saying "only" denies."""
    if POLAR_OPENING.match(sentence):
        enough = covered(sentence) >= COVER_POLAR or (closest and terms_carry)
        return "" if enough else None
    if negated:
        return None  # "isn't X ...?": a Yes or No would be ambiguous; quote instead
    if _MISTAKE.search(sentence) and covered(sentence) >= (0.0 if closest else COVER_MISTAKE):
        return "No"
    parts = clauses(sentence) or [sentence]
    for clause in parts:
        if _denies(clause, covered) and covered(clause) >= COVER_NEGATION:
            return "No"
    if universal:
        # "enable PFC on all priorities?" against "PFC is enabled only on the RDMA priority"
        for clause in parts:
            if _ONLY.search(clause) and covered(clause) >= COVER_NEGATION:
                return "No"
    negating = [clause for clause in parts if _NEGATION.search(clause)]
    if _NEGATION.search(sentence) and (not negating or any(covered(c) != 0 for c in negating)):
        # A negation in a clause about the question: not a plain Yes. One in a clause about
        # something else ("..., because a fabric without a master cannot recover") is no bar.
        return None
    for clause in parts:
        if not _HEDGE.search(clause) and covered(clause) >= COVER_AFFIRM:
            return "Yes"
    return None


def _denies(clause: str, covered: Callable[[str], float]) -> bool:
    """True if a negation in the clause bears on the question: a word of the question follows
    it closely ("cannot exchange RDMA traffic"), not on something else ("without a standby
    the fabric cannot react to link failures")."""
    for match in _NEGATION.finditer(clause):
        after = " ".join(clause[match.end():].split()[:NEGATION_REACH])
        if covered(after) > 0:
            return True
    return False


def opening(word: str, sentence: str) -> str:
    """Prefix a sentence with the word that answers the question ("No: A common ...")."""
    return f"{word}: {sentence}" if word else sentence


def without_opening(sentence: str) -> str:
    """Drop a leading Yes/No/It depends (for a question that was not yes/no)."""
    rest = re.sub(r"^(yes|no|it\s+depends(\s+on\s+[^,:;]{1,40})?)\s*[,:;-]\s*"
                  r"((partly|mostly|in\s+general|in\s+most\s+cases|usually|often|sometimes|"
                  r"not\s+always|not\s+quite|not\s+necessarily|somewhat)\s*[,:;-]\s*)?",
                  "", sentence, flags=re.I)
    return rest[:1].upper() + rest[1:] if rest != sentence and rest else sentence
