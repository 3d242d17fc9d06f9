"""Plain-text helpers shared by the corpus, the composer and the evals.

Citation markers, sentence splitting, and the rule that decides whether a sentence can be
quoted on its own. Pure functions, no imports beyond `re`.
"""

from __future__ import annotations

import re

#: A citation marker in an answer: "[3]".
MARKER = re.compile(r"\[(\d+)\]")

_SENT_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[A-Z0-9\"'(\[$])")
_MD_INLINE = re.compile(r"(\*\*|__|`)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")


def clean_inline(text: str) -> str:
    """Strip inline Markdown (bold, code, links) so a sentence reads as plain text."""
    return _MD_INLINE.sub("", _LINK.sub(r"\1", text)).strip()


def split_sentences(text: str) -> list[str]:
    """Split a passage into sentences; list items count as sentences, table rows are skipped."""
    out: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            joined = " ".join(paragraph)
            out.extend(s.strip() for s in _SENT_SPLIT.split(joined) if s.strip())
            paragraph.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            flush()
            continue
        if stripped.startswith("|"):
            flush()
            continue
        item = re.match(r"^([-*+]|\d+[.)])\s+(.*)$", stripped)
        if item:
            flush()
            paragraph.append(item.group(2))
            flush()
            continue
        paragraph.append(stripped)
    flush()
    return [clean_inline(s) for s in out if len(s.split()) >= 3]


# --- sentences that cannot be quoted alone ------------------------------------------------

#: Words that open a sentence only when it continues the one before it.
_LEANING_OPENING = re.compile(
    r"^(another|also|then|thus|hence|so|therefore|however|instead|otherwise|similarly|"
    r"likewise|meanwhile|such|here|next|finally|still|yet|besides|moreover|furthermore|"
    r"conversely|again|afterwards|both\s+(?:of\s+them|are|have|can|use|need|do|run|carry)|"
    r"in\s+addition|in\s+that\s+case|in\s+this\s+case|in\s+contrast|by\s+contrast|"
    r"as\s+a\s+result|for\s+that\s+reason|on\s+top\s+of\s+that|that\s+way|"
    r"the\s+same|the\s+former|the\s+latter|the\s+result|the\s+rest|the\s+other|"
    r"the\s+(?:job|run|quote|example|total|difference|saving|bill|answer)|"
    r"a\s+(?:second|third|fourth|fifth|final)|"
    r"it|this|that|these|those|they|its|their|he|she|them)(?=[\s,;])",
    re.I)
#: A changed scenario ("The job now costs ...") or a pointer to text around the sentence.
_LEANING_INSIDE = re.compile(
    r"\bnow\s+(costs?|takes?|runs?|needs?|has|have|is|are|finishes|returns?)\b"
    r"|\b(the|this|that)\s+(above|previous|preceding|following)\s+(example|table|figure|"
    r"calculation|section|paragraph|list|sentence|count|prices?|case|quote|steps?)\b"
    r"|\b(as|see)\s+(above|below)\b|\babove\s+(example|table|figure|calculation)\b"
    r"|\b(the\s+)?(same|new)\s+(?P<noun>job|cluster|run|quote)\b",
    re.I)
#: A lettered example ("Cluster B also returns ...") only makes sense beside its set-up.
_LETTERED = re.compile(r"^(cluster|quote|option|plan|job|case|scenario|vendor|offer)\s+[A-D]\b",
                       re.I)


def dangling_reason(sentence: str) -> str | None:
    """Say why a sentence cannot be quoted on its own, or return None when it can."""
    text = sentence.strip()
    if not text:
        return "empty"
    if text.endswith(":"):
        return "ends with ':' (it introduces what follows)"
    if text.endswith("?"):
        return "is a question, not a statement"
    opening = _LEANING_OPENING.match(text)
    if opening and not re.match(r"it\s+depends\b", text, re.I):
        return f"opens with {opening.group(1)!r}, which leans on the sentence before"
    if _LETTERED.match(text):
        return "names a lettered example without its set-up"
    inside = _LEANING_INSIDE.search(text)
    # "the same job" is fine when the sentence itself introduced the job earlier.
    if inside and not (inside.group("noun") and
                       re.search(rf"\b{inside.group('noun')}\b", text[:inside.start()], re.I)):
        return f"{inside.group(0)!r} leans on the text around it"
    return None


def stands_alone(sentence: str) -> bool:
    """Return True if a sentence can be quoted out of context."""
    return dangling_reason(sentence) is None


def strip_markers(text: str) -> str:
    """Remove citation markers from a text."""
    return re.sub(r"\s*\[\d+\]", "", text)
