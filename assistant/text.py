"""Plain-text helpers shared by the corpus, the composer, the LLM checks and the evals.

Citation markers, sentence splitting (of corpus passages and of answers), numbers written in
a text, term keys, and the rule that decides whether a sentence can be quoted on its own.
Pure functions, no imports beyond `re`.

Example:
    >>> markers_in("RoCE runs over UDP [2]. It is routable [1].")
    [2, 1]
    >>> numbers_in("1. It costs $179,200 [3].")
    [179200.0]
"""

from __future__ import annotations

import re
from functools import lru_cache

# --- citation markers ----------------------------------------------------------------------

#: A citation marker in an answer: "[3]".
MARKER = re.compile(r"\[(\d+)\]")
_MARKER_AND_SPACE = re.compile(r"\s*\[\d+\]")
_ONLY_MARKERS = re.compile(r"(\[\d+\]\s*)+")


def markers_in(text: str) -> list[int]:
    """Return the citation numbers a text uses, in order of appearance (repeats kept)."""
    return [int(n) for n in MARKER.findall(text)]


def strip_markers(text: str) -> str:
    """Remove citation markers from a text."""
    return _MARKER_AND_SPACE.sub("", text)


# --- numbers -------------------------------------------------------------------------------

# A figure ("4791", "$179,200", "0.56", "-3"), not a citation marker or part of a name ("v2").
_NUMBER = re.compile(r"(?<![\w.\[])-?\$?\d[\d,]*(?:\.\d+)?(?![\d\]])")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.M)


def numbers_in(text: str) -> list[float]:
    """Return the numbers written in a text, ignoring citation markers and list numbers."""
    text = _LIST_MARK.sub("", MARKER.sub(" ", text))
    out = []
    for raw in _NUMBER.findall(text):
        try:
            out.append(float(raw.replace("$", "").replace(",", "")))
        except ValueError:
            continue
    return out


# --- term keys -----------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+")


def term_key(text: str) -> str:
    """Return the key a term is matched by ("RoCE-v2 (RDMA)" -> "roce v2 rdma")."""
    return " ".join(_WORD.findall(text.lower()))


# --- sentences -----------------------------------------------------------------------------

_SENT_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[A-Z0-9\"'(\[$])")
_MD_INLINE = re.compile(r"(\*\*|__|`)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
# The end of an answer's sentence, with the markers that cite it: ". [1][2]".
_ANSWER_SENTENCE_END = re.compile(r"[.!?](?:\s*\[\d+\])*(?=\s|$)")


def clean_inline(text: str) -> str:
    """Strip inline Markdown (bold, code, links) so a sentence reads as plain text."""
    return _MD_INLINE.sub("", _LINK.sub(r"\1", text)).strip()


def split_sentences(text: str) -> list[str]:
    """Split a corpus passage into quotable sentences (plain text, at least three words).

    List items count as sentences; headings and table rows are skipped. For an answer, whose
    sentences keep their citation markers, use `split_answer_sentences`.
    """
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


_CELL_EMPTY = frozenset({"", "-", "—", "–", "n/a"})


def table_sentences(text: str, name: str) -> list[str]:
    """Return each row of the Markdown tables in a passage as a sentence that stands alone.

    A row is said with its column names, after the thing the table is about (`name`, the
    page's title) unless the row's first cell names it already:
    "EDR (InfiniBand generations): per-lane rate 25 Gb/s; 4x port speed 100 Gb/s."
    """
    rows: list[list[str]] = []
    out: list[str] = []

    def flush() -> None:
        if len(rows) >= 2:
            header, *body = rows
            for cells in body:
                out.extend(_row_sentence(header, cells, name))
        rows.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("|"):
            flush()
            continue
        cells = [clean_inline(c.strip()) for c in stripped.strip("|").split("|")]
        if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
            # the line under a header: a table straight after another (no blank line between
            # them in a chunk) starts here, its header is not a row of the one before
            if len(rows) > 1:
                header = rows.pop()
                flush()
                rows.append(header)
            continue
        rows.append(cells)
    flush()
    return out


def _row_sentence(header: list[str], cells: list[str], name: str) -> list[str]:
    if not cells or cells[0].lower() in _CELL_EMPTY:
        return []
    said = [f"{_column(h)} {c}" for h, c in zip(header[1:], cells[1:], strict=False)
            if c.lower() not in _CELL_EMPTY and h]
    if not said:
        return []
    lead = cells[0] if term_key(name) in term_key(cells[0]) else f"{cells[0]} ({name})"
    return [f"{lead}: {'; '.join(said)}".rstrip(".") + "."]


def _column(header: str) -> str:
    # a name keeps its capitals: "InfiniBand", "RoCE v2", "H100", "EDR"
    first = header.split(" ", 1)[0]
    return header if first.isupper() or any(ch.isdigit() or ch.isupper() for ch in first[1:]) \
        else header[:1].lower() + header[1:]


def split_answer_sentences(text: str) -> list[str]:
    """Split answer text into sentences, each keeping its markers; lines count as sentences."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("|"):
            continue
        start = 0
        for match in _ANSWER_SENTENCE_END.finditer(line):
            piece = line[start:match.end()].strip()
            if piece:
                out.append(piece)
            start = match.end()
        rest = line[start:].strip()
        if rest and not _ONLY_MARKERS.fullmatch(rest):
            out.append(rest)
        elif rest and out:
            out[-1] += " " + rest
    return out


def complete_prefix(buffer: str) -> int:
    """Return how much of a streaming answer is made of finished sentences (or lines)."""
    last = 0
    for match in _ANSWER_SENTENCE_END.finditer(buffer):
        if match.end() < len(buffer):
            last = match.end()
    newline = buffer.rfind("\n")
    return max(last, newline + 1 if newline >= 0 else 0)


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


#: "GPUs inside one server communicate over NVLink instead.": instead of what the sentence
#: before said.
_TRAILING_LEAN = re.compile(r"\b(instead|as\s+well)\s*[.!]?$", re.I)
#: "The figures are listed below.": a pointer to a table or list that a quote leaves behind.
_POINTING = re.compile(r"\b(listed|shown|given|set\s+out|summari[sz]ed|tabulated)\s+"
                       r"(below|above)\b|"
                       r"\b(the|this)\s+(table|list|figure|diagram)\s+(below|above)\b|"
                       r"\bas\s+follows\b", re.I)


#: "in that formula", "such losses", "these drops": a demonstrative whose noun was said in an
#: earlier sentence. "that" is a demonstrative only after a preposition ("in that formula");
#: elsewhere it is usually a conjunction or a relative pronoun ("a switch that trusts DSCP").
_DEMONSTRATIVE = re.compile(
    r"\b(?:(?P<word>this|these|those|such(?!\s+(?:as|that)\b)(?:\s+an?)?)"
    r"|(?:in|on|of|for|from|with|by|at|to|into|over|under|after|before|during|about|like|"
    r"than|per|across|beyond|without)\s+(?P<that>that))"
    r"\s+(?:(?:same|very|exact)\s+)?(?P<noun>[a-z][\w-]*)", re.I)
#: Words after "these"/"those" that make it a pronoun whose noun comes in the same sentence
#: ("those of Ethernet", "those that drop").
_RELATIVE_AFTER = frozenset({"of", "that", "which", "who", "whose", "with", "in", "on", "at",
                             "for", "from", "where", "whom"})
#: "therefore", "thus", "hence", "then" state a consequence of something said before, unless
#: the sentence gives the premise itself ("because ...", "if ..., then", "..., so ...").
_CONSEQUENCE = re.compile(r"\b(therefore|thus|hence|consequently|accordingly|then)\b", re.I)
_PREMISE = re.compile(r"[,;:]|\b(because|since|given|if|when|whenever|once|after|before|"
                      r"until|first|so|and|or|but|while|where)\b", re.I)
#: A sentence that only announces the list after it: "UALink compares with NVLink in a few
#: concrete ways.", "Three factors decide the headroom."
_COUNTED = (r"(?:a\s+few|several|some|many|various|a\s+number\s+of|two|three|four|five|six|"
            r"seven|eight|nine|ten)")
_VAGUE = (r"(?:ways|respects|steps|areas|aspects|points|places|dimensions|regards|things|"
          r"factors|reasons|parts|stages|kinds|types|categories|differences|questions|rules|"
          r"options|settings|checks|phases|components|lessons|levers|costs|benefits|problems|"
          r"issues|mistakes|cases|scenarios|approaches|choices)")
_LIST_INTRO = re.compile(
    rf"\b{_COUNTED}\s+(?:[a-z-]+\s+){{0,2}}{_VAGUE}(?:\s+(?:to\s+\w+|matter|apply|"
    rf"stand\s+out|follow))?\s*[.!]?$"
    r"|\b(?:the\s+following|like\s+this|like\s+so)\s*[.!]?$", re.I)
#: "Three factors set the headroom.": a short sentence whose subject is a count of vague things.
_LIST_SUBJECT = re.compile(rf"^(?:there\s+are\s+)?{_COUNTED}\s+(?:[a-z-]+\s+)?{_VAGUE}\b", re.I)


#: "X is also a mistake", "is a mistake too", "is a further (third, another) mistake": a mistake
#: counted after one the reader has not seen.
_NEXT_MISTAKE = re.compile(
    r"\b(?:is|are|was|were|makes?)\s+(?:also\s+(?:an?\s+)?|another\s+|an?\s+(?:further|second|"
    r"third|fourth|fifth|sixth|additional|other|similar|related|final|last)\s+)"
    r"(?:[\w-]+\s+){0,3}?(?:mistake|error|pitfall|trap)s?(?![\w-])"
    r"|\b(?:mistake|error|pitfall|trap)s?,?\s+(?:too|as\s+well)\b", re.I)
#: "DiLoCo goes further and ...": further than something said before ("further than X" is fine).
_GOES_FURTHER = re.compile(r"\b(?:go|goes|going|went|gone)\s+(?:even\s+|still\s+|much\s+|"
                           r"one\s+step\s+|a\s+step\s+)?further\b(?!\s+than\b)"
                           r"|\ba\s+step\s+further\b(?!\s+than\b)", re.I)
#: "The main kinds are ...", "All four kinds plug into ...": kinds of a thing named before.
_KIND_WORDS = (r"(?:kinds?|types?|ways?|forms?|ones|options?|reasons?|causes?|levers?|factors?|"
               r"parts?|steps?|differences?|choices?|famil(?:y|ies)|class(?:es)?|"
               r"categor(?:y|ies)|approach(?:es)?|modes?|methods?|variants?|benefits?|costs?|"
               r"problems?|issues?|risks?|drawbacks?|advantages?)")
_KINDS_SUBJECT = re.compile(
    r"^(?:the\s+|all\s+|both\s+)?(?:(?:main|most\s+common|common|usual|key|principal|basic|"
    r"major|typical|remaining|biggest|largest|important|only|two|three|four|five|six)\s+)+"
    rf"(?:[a-z][\w-]*\s+)?{_KIND_WORDS}\b(?!\s+(?:of|to|for|in|on|at|that|which|who|where|"
    r"between|behind|why|a|an|the)\b)(?=\s+\w)", re.I)
#: "Yes,", "No,", "It depends:" open an FAQ answer; the statement after them must stand alone.
_ANSWER_OPENER = re.compile(r"^(?:yes|no|it\s+depends(?:\s+on\s+[^:,]+)?)\s*[,:]\s*", re.I)
#: "No, not as fast as ...": what follows the word is no statement of its own, so quoted
#: without the word it is a fragment (a short hedge closed by a colon, "Yes, but only bluntly:",
#: goes with the word and is fine).
_HEDGE_AFTER_OPENER = re.compile(r"(?:not|but|only|nor)\b(?![^,:;.]{0,30}:)", re.I)
#: "X also does Y" in the sentence's first clause adds to something said before; "also called"
#: names a synonym and a clause before it ("A does B, and C also does B") resolves it.
_ALSO = re.compile(r"\balso\b(?!\s+(?:called|known|named|termed|referred|written|spelled|"
                   r"abbreviated|marketed|sold|branded)\b)", re.I)
#: "..., also at 51.2 Tb/s": an aside that compares with a figure said before.
_APPOSITIVE_ALSO = re.compile(r",\s+also\s+(?:at|with|in|on|for|from|by|under|over|to|about|"
                              r"around|near|an?|the|\d)\b", re.I)
_CLAUSE_BEFORE = re.compile(r"[,;:]|\b(?:and|but|or|nor|while|whereas|which|who|whose|that|so|"
                            r"because|since|where|when|whenever|if|although|though|once|"
                            r"unless|until|after|before)\b", re.I)
#: ", which adds cost on top of the price": a relative clause says nothing about what "also"
#: adds to.
_RELATIVE_CLAUSE = re.compile(r",\s+(?:which|where|who)\b[^,;]*", re.I)
_ADDITION_SAID = re.compile(r"\b(?:in\s+addition\s+to|as\s+well\s+as|besides|beside|"
                            r"on\s+top\s+of|alongside|not\s+only|apart\s+from|other\s+than)\b",
                            re.I)
#: "Links between sites instead rely on ...": in place of something said before, unless the
#: sentence says what it replaces ("does not use X and instead ...", "instead of X").
_INSTEAD = re.compile(r"\binstead\b(?!\s+of\b)", re.I)
_CONTRAST_BEFORE = re.compile(r"\b(?:not|no|never|without|rather|unlike|cannot|nor)\b|n't\b",
                              re.I)
#: "... is paused too, which ...", "Too, ...": like something said before, unless a clause
#: before it says what ("A pauses, and B waits too").
_TOO = re.compile(r"\btoo\s*(?=[,.;!)]|$)|^too\s*,", re.I)


def _continues_earlier(text: str) -> str | None:
    """Name a word that adds to, goes beyond or replaces something said before the sentence."""
    for pattern, what in ((_NEXT_MISTAKE, "counts a mistake after one said before"),
                          (_GOES_FURTHER, "goes further than something said before"),
                          (_KINDS_SUBJECT, "names kinds of something it does not name"),
                          (_APPOSITIVE_ALSO, "compares with something said before")):
        match = pattern.search(text)
        if match:
            return f"{match.group(0).strip(' ,')!r} {what}"
    body = _ANSWER_OPENER.sub("", text, count=1)
    if body != text and _HEDGE_AFTER_OPENER.match(body):
        return (f"{body.split()[0]!r} after the Yes or No leans on it (the statement must "
                "stand alone)")
    also = _ALSO.search(body)
    if (also and not _CLAUSE_BEFORE.search(body[:also.start()])
            and not _ADDITION_SAID.search(_RELATIVE_CLAUSE.sub("", body))):
        return "'also' adds to something said before the sentence"
    too = _TOO.search(body)
    if too and (too.start() == 0 or not _CLAUSE_BEFORE.search(body[:too.start()])):
        return "'too' is like something said before the sentence"
    instead = _INSTEAD.search(body)
    if instead and not _CONTRAST_BEFORE.search(body[:instead.start()]):
        return "'instead' replaces something said before the sentence"
    return None


def _said_before(noun: str, text: str) -> bool:
    """True if a noun, or a word built on it ("marks", "marking"), already occurs in a text."""
    stem = re.sub(r"(?:es|s)$", "", noun.lower())
    if len(stem) < 3:
        return False
    return re.search(rf"\b{re.escape(stem)}\w*", text, re.I) is not None


def _leaning_reference(text: str) -> str | None:
    """Name a demonstrative or consequence word that leans on an earlier sentence."""
    for match in _DEMONSTRATIVE.finditer(text):
        noun = match.group("noun")
        word = (match.group("word") or match.group("that")).split()[0].lower()
        if (word in ("these", "those") and noun.lower() in _RELATIVE_AFTER
                or word == "that" and noun.lower() == "of"):
            continue  # "those of Ethernet", "that of TCP": the noun is in the sentence
        if not _said_before(noun, text[:match.start()]):
            said = f"{word} {noun}" if word != "such" else match.group("word") + f" {noun}"
            return f"{said!r} points at something said before the sentence"
    for match in _CONSEQUENCE.finditer(text):
        before = text[:match.start()]
        if match.start() and not _PREMISE.search(before):
            return f"{match.group(0)!r} states a consequence whose premise is not in the sentence"
    return None


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
    if _TRAILING_LEAN.search(text):
        return "ends with 'instead' or 'as well', which leans on the sentence before"
    pointing = _POINTING.search(text)
    if pointing:
        return f"{pointing.group(0)!r} points at text that is not quoted with it"
    if _LIST_INTRO.search(text) or (_LIST_SUBJECT.match(text) and len(text.split()) <= 10):
        return "only announces the list or text that follows it"
    reference = _leaning_reference(text) or _continues_earlier(text)
    if reference:
        return reference
    inside = _LEANING_INSIDE.search(text)
    # "the same job" is fine when the sentence itself introduced the job earlier.
    if inside and not (inside.group("noun") and
                       re.search(rf"\b{inside.group('noun')}\b", text[:inside.start()], re.I)):
        return f"{inside.group(0)!r} leans on the text around it"
    return None


@lru_cache(maxsize=16384)
def stands_alone(sentence: str) -> bool:
    """Return True if a sentence can be quoted out of context (the corpus's sentences are
    judged once each: the answer path asks about the same few thousand again and again)."""
    return dangling_reason(sentence) is None

