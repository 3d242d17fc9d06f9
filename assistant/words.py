"""Words for matching a question against sentences: stems, synonyms, link speeds."""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .retrieve import Retriever

_TOKEN = re.compile(r"[a-z0-9]+")


_STOP_WORDS = frozenset("""a an and are as at be but by can could do does did for from how i if
in into is it its me my of on or our so than that the their them then there these they this
to was we what whats when where which who why will with you your vs versus about explain tell
please pls simply simple terms really actually just even still also any anyone anything one
use used using work works working need needs get got would should thing things kind sort mean
means meaning called exactly like too even ever anyway again go goes going out literally
basically not whether hey hi hello between""".split())


#: Words visitors use for the corpus's own words ("NIC" where the corpus says adapter).
SYNONYMS = {"nic": "adapter", "card": "adapter", "hca": "adapter", "node": "server",
            "machine": "server", "box": "server", "host": "server", "msg": "message",
            "datacenter": "data", "dc": "data", "big": "large", "huge": "large", "fast": "speed",
            "quick": "speed", "slow": "speed", "cheap": "cost", "expensive": "cost",
            "price": "cost", "pay": "cost", "backup": "standby", "tenant": "customer",
            "client": "customer", "normal": "standard", "module": "transceiver",
            "optic": "transceiver", "lost": "drop", "lose": "drop", "loss": "drop",
            "down": "fail", "crash": "fail", "die": "fail", "dead": "fail", "broken": "fail"}


@cache
def _synonyms() -> dict[str, str]:
    return {_stem(k): _stem(v) for k, v in SYNONYMS.items()}


@cache
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@cache
def _stem(word: str) -> str:
    word = word.lower()
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]  # Snowball keeps "gpus" and "msgs" whole
    short = _stemmer().stemWord(word)
    if short.endswith(("abl", "ibl")) and len(short) > 5:
        short = short[:-3]  # "routable" and "route"
    elif short.endswith("er") and len(short) > 5:
        short = short[:-2]  # "router" and "routed", "faster" and "fast"
    elif short.endswith("ript") and len(short) > 6:
        short = short[:-2] + "b"  # "oversubscription" and "oversubscribed"
    return short


def stem(word: str) -> str:
    """Stem a word for matching a question's words in a sentence: Snowball English with
    plurals, "-able" and "-er" folded, then the visitor's synonym for the corpus's word."""
    short = _stem(word)
    return _synonyms().get(short, short)


#: Link speeds written every way ("400G", "400 Gb/s", "400GbE", "1.6T") become one token.
_SPEED = re.compile(r"(\d+(?:\.\d+)?)\s*(?:(G|g)(?:b/s|bps|bE|be|bit/s)?|(T|t)(?:b/s|bps)?)"
                    r"(?![\w/])")


def _speeds(text: str) -> str:
    return _SPEED.sub(lambda m: f" {m.group(1).replace('.', 'p')}{'g' if m.group(2) else 't'} ",
                      text)


@cache
def stems_of(text: str) -> frozenset[str]:
    """The stems of a text's words, with link speeds in one spelling."""
    return frozenset(stem(w) for w in _TOKEN.findall(_speeds(text).lower()))


@cache
def content_stems(text: str) -> frozenset[str]:
    """The stems of a text's words that are not stop words."""
    return frozenset(stem(w) for w in _TOKEN.findall(_speeds(text).lower())
                     if w not in _STOP_WORDS and len(w) > 1)


def residual_words(text: str, retriever: Retriever) -> frozenset[str]:
    """Return the content words of a question outside the terms it names, crudely stemmed."""
    lowered = text.lower()
    for match in retriever.terms.find(text):
        lowered = lowered.replace(match.said, " ")
    words = {stem(w) for w in _TOKEN.findall(_speeds(lowered)) if w not in _STOP_WORDS
             and len(w) > 1}
    return frozenset(w for w in words if w)


#: A model named by a word and a number ("Tomahawk 6", "ConnectX-8", "NVLink 5", "Gen6") or
#: by a product code ("H100", "GB200", "NVL72").
MODEL = re.compile(r"\b([a-z][a-z]+)[\s-]?(\d{1,2})(?![\w./%×]|,\d)|\b([a-z]{1,4})(\d{2,4})\b",
                   re.I)
NOT_MODEL = _STOP_WORDS | {"over", "under", "across", "between", "around", "than", "only",
                           "all", "top", "first", "last", "about", "per", "every", "each",
                           "up", "down", "by", "x"}


def models(text: str) -> dict[str, set[str]]:
    """The models a text names, as {word: {numbers}} ("Tomahawk 5 and Tomahawk 6")."""
    out: dict[str, set[str]] = {}
    for word, number in _models(text):
        out.setdefault(word, set()).add(number)
    return out


@cache
def _models(text: str) -> tuple[tuple[str, str], ...]:
    # Cached: every quantity question naming a model reads the corpus's sentences for it.
    out = []
    for match in MODEL.finditer(text):
        word = (match.group(1) or match.group(3)).lower()
        if word not in NOT_MODEL:
            out.append((word, match.group(2) or match.group(4)))
    return tuple(out)


def without_models(text: str) -> str:
    """The text with the models it names blanked ("Tomahawk 6 ... 8 GPUs" keeps only 8)."""
    return MODEL.sub(lambda m: m.group(0) if (m.group(1) or m.group(3)).lower() in NOT_MODEL
                     else " ", text)


def model_fit(asked: dict[str, set[str]], sentence: str) -> float:
    """+1 for each asked model the sentence names, -1 for each it names as another number."""
    said = models(sentence)
    fit = 0.0
    for word, numbers in asked.items():
        if said.get(word, set()) & numbers:
            fit += 1
        elif said.get(word):
            fit -= 1
    return fit
