"""Staff FAQ entries: answers support staff write in the console for questions the corpus
missed, indexed at once as FAQ units of a page and exported as a front-matter patch.

An entry's units have the shapes `corpus.chunk_page` gives a corpus FAQ item (the chunk in
the main collection, the question and sentence vectors beside it), under ids of their own
(`<slug>::staff::<id>...`) that a corpus FAQ can never take.

Example:
    >>> entry = store.add_staff_entry("Is InfiniBand expensive?", "InfiniBand ...", "infiniband",
    ...                               author="ana")                     # doctest: +SKIP
    >>> publish(store, index, retriever, corpus, entry.id)              # doctest: +SKIP
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .corpus import FAQ_SECTION, Chunk, Corpus, Page
from .index import STAFF_MARK
from .text import dangling_reason, split_sentences

if TYPE_CHECKING:
    from .chain import Assistant
    from .retrieve import Retriever

#: Longest question and answer staff may write (a corpus FAQ answer is 1-3 sentences).
MAX_QUESTION = 300
MAX_ANSWER = 1200
MAX_SENTENCES = 3
#: The line shown under an answer whose lead a staff entry gave.
SUPPORT_NOTE = "Answered by support."
#: The start of an HTML tag, end tag, comment or declaration. Staff write plain text: a site
#: that inserts `/api/ask`'s answer as HTML must never receive markup from one ("<" alone,
#: as in "latency < 1 us", is text).
MARKUP = re.compile(r"<[A-Za-z/!?]")


class StaffEntryError(ValueError):
    """A staff FAQ entry that cannot be saved, with the reason staff are shown."""


@dataclass(frozen=True)
class StaffEntry:
    """One answer written by support staff for a page's FAQ."""

    id: int
    question: str
    answer: str
    slug: str
    author: str
    created: str
    status: str  # "draft", "published" or "retired"

    @property
    def chunk_id(self) -> str:
        """The id of the entry's FAQ chunk in the index."""
        return f"{self.slug}{STAFF_MARK}{self.id}"


class StaffEntries(Protocol):
    """Where entries are kept: the log (`staff_log.StaffLog`, `store.Store`)."""

    def staff_entry(self, entry_id: int) -> StaffEntry | None:
        """Return one entry, or None."""
        ...

    def staff_entries(self, status: str | None = None, limit: int = 1000) -> list[StaffEntry]:
        """Return entries (of one status if given), newest first."""
        ...

    def set_staff_status(self, entry_id: int, status: str) -> StaffEntry:
        """Set an entry's status and return it."""
        ...


def validate(question: str, answer: str, slug: str, corpus: Corpus) -> tuple[str, str, str]:
    """Return the cleaned (question, answer, slug), or raise StaffEntryError saying why not."""
    question = " ".join(str(question or "").split())
    answer = " ".join(str(answer or "").split())
    slug = str(slug or "").strip()
    if not question:
        raise StaffEntryError("The question is empty.")
    if len(question) > MAX_QUESTION:
        raise StaffEntryError(f"The question is longer than {MAX_QUESTION} characters.")
    if not answer:
        raise StaffEntryError("The answer is empty.")
    if len(answer) > MAX_ANSWER:
        raise StaffEntryError(f"The answer is longer than {MAX_ANSWER} characters.")
    if slug not in corpus.pages:
        raise StaffEntryError(f"There is no page {slug!r}.")
    for name, text in (("question", question), ("answer", answer)):
        if markup := MARKUP.search(text):
            raise StaffEntryError(f"Write the {name} as plain text: "
                                  f"{text[markup.start():markup.start() + 12]!r} looks like "
                                  "HTML markup.")
    sentences = split_sentences(answer)
    if not 1 <= len(sentences) <= MAX_SENTENCES:
        raise StaffEntryError(f"The answer has {len(sentences)} sentences; "
                              f"write 1 to {MAX_SENTENCES}.")
    for i, sentence in enumerate(sentences, 1):
        reason = dangling_reason(sentence)
        if reason:
            raise StaffEntryError(f"Sentence {i} {reason}: every sentence must stand alone.")
    return question, answer, slug


def staff_units(entry: StaffEntry, page: Page) -> list[Chunk]:
    """Return the index units of an entry, shaped as chunk_page shapes a corpus FAQ item."""
    common = {"slug": page.slug, "title": page.title, "kind": page.kind, "url": page.url}
    cid = entry.chunk_id
    units = [Chunk(id=cid, section=FAQ_SECTION, text=f"{entry.question} {entry.answer}",
                   **common),
             Chunk(id=f"{cid}::q", section=FAQ_SECTION, text=entry.question, unit="question",
                   chunk_id=cid, position=entry.id, **common)]
    for j, sentence in enumerate(split_sentences(entry.answer)):
        # After every corpus sentence of the page, in entry order.
        units.append(Chunk(id=f"{cid}::s{j}", section=FAQ_SECTION, text=sentence,
                           unit="sentence", chunk_id=cid,
                           position=100_000 + entry.id * 10 + j, **common))
    return units


def is_staff(unit_id: str) -> bool:
    """True if an index unit id belongs to a staff FAQ entry."""
    return STAFF_MARK in unit_id


def publish(store: StaffEntries, index, retriever: Retriever | None, corpus: Corpus,
            entry_id: int) -> StaffEntry:
    """Index a stored entry as FAQ units of its page, mark it published, refresh retrieval."""
    entry = store.staff_entry(entry_id)
    if entry is None:
        raise StaffEntryError(f"No staff entry {entry_id}.")
    validate(entry.question, entry.answer, entry.slug, corpus)
    index.add_units(staff_units(entry, corpus.pages[entry.slug]))
    entry = store.set_staff_status(entry_id, "published")
    if retriever is not None:
        retriever.refresh()
    return entry


def unpublish(store: StaffEntries, index, retriever: Retriever | None, entry_id: int) -> StaffEntry:
    """Remove an entry's units from the index, set it back to draft, refresh retrieval."""
    entry = store.staff_entry(entry_id)
    if entry is None:
        raise StaffEntryError(f"No staff entry {entry_id}.")
    index.remove_chunk(entry.chunk_id)
    entry = store.set_staff_status(entry_id, "draft")
    if retriever is not None:
        retriever.refresh()
    return entry


def preview(assistant: Assistant, question: str, answer: str, slug: str) -> Assistant:
    """Return a copy of the assistant that also knows one entry, published in memory only.

    Nothing is stored and the assistant's own index is left as it is (see OverlayIndex):
    for checking what a visitor would be told, e.g. by the evaluator's staff items.
    """
    from .index import OverlayIndex
    from .retrieve import Retriever

    question, answer, slug = validate(question, answer, slug, assistant.corpus)
    entry = StaffEntry(0, question, answer, slug, "preview", "", "published")
    overlay = OverlayIndex(assistant.index)
    overlay.add_units(staff_units(entry, assistant.corpus.pages[slug]))
    retriever = Retriever(overlay, assistant.corpus, mode=assistant.retriever.mode)
    copy = type(assistant)(assistant.settings, assistant.corpus, overlay, retriever,
                           assistant.llm)
    copy.learning = assistant.learning
    return copy


def sync_after_ingest(store: StaffEntries, index, corpus: Corpus) -> list[int]:
    """Re-add published entries after an ingest and retire those the corpus FAQ now holds.

    Return the ids of the entries retired. An entry with markup, which an older version
    let staff store, is withdrawn from the index and set back to draft.
    """
    retired = []
    for entry in store.staff_entries(status="published"):
        if MARKUP.search(entry.question) or MARKUP.search(entry.answer):
            index.remove_chunk(entry.chunk_id)
            store.set_staff_status(entry.id, "draft")
            continue
        page = corpus.pages.get(entry.slug)
        merged = page is not None and any(
            _same_question(item.q, entry.question) for item in page.faq)
        if page is None or merged:
            index.remove_chunk(entry.chunk_id)
            store.set_staff_status(entry.id, "retired")
            retired.append(entry.id)
        else:
            index.add_units(staff_units(entry, page))
    return retired


def _same_question(a: str, b: str) -> bool:
    return " ".join(a.lower().split()).rstrip("?") == " ".join(b.lower().split()).rstrip("?")


def yaml_patch(entries: list[StaffEntry]) -> str:
    """Return published entries as `faq:` items to add to each page's front matter (YAML)."""
    import yaml

    by_page: dict[str, list[dict[str, str]]] = {}
    for entry in entries:
        if entry.status == "published":
            by_page.setdefault(entry.slug, []).append({"q": entry.question, "a": entry.answer})
    parts = []
    for slug, items in sorted(by_page.items()):
        parts.append(f"# corpus page {slug}: add to its front matter's faq: list\n"
                     + yaml.safe_dump({"faq": items}, sort_keys=False, allow_unicode=True,
                                      width=88))
    return "\n".join(parts)
