"""The corpus: glossary and lesson pages, their chunks and sentences, and the editor's check."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .text import dangling_reason, split_sentences, table_sentences

GLOSSARY_SECTIONS = ("Definition", "Why it matters", "How it works", "Example",
                     "Common mistake", "Related terms")
LESSON_MUST_CONTAIN = ("Worked example", "Takeaway", "Checklist")
FACT_KEYS = ("layer", "scope", "typical_bandwidth", "latency", "lossless_by",
             "standard_or_vendor", "used_for")
FACT_LABELS = {"layer": "Layer", "scope": "Scope", "typical_bandwidth": "Typical bandwidth",
               "latency": "Latency", "lossless_by": "Lossless by",
               "standard_or_vendor": "Standard or vendor", "used_for": "Used for"}
WORD_FLOOR = {"glossary": 180, "lesson": 600}
REQUIRED = ("title", "slug", "kind", "url", "summary", "aliases", "tags", "related", "updated",
            "faq", "sources")
FAQ_RANGE = (2, 8)
BANNED_STARTS = ("It", "This", "That", "These", "Those", "They", "Its", "Their")
FAQ_SECTION = "FAQ"
#: Bumped when chunking changes, so that every page is re-embedded once.
CHUNKER_VERSION = "9"


@dataclass(frozen=True)
class FAQ:
    """One suggested question with its standalone answer."""

    q: str
    a: str


@dataclass(frozen=True)
class Source:
    """A reference behind a page: a specification, vendor document or paper."""

    title: str
    publisher: str
    year: str
    url: str = ""
    kind: str = ""  # vendor, standard, paper or market; inferred when empty (source_kind)


@dataclass(frozen=True)
class Page:
    """A corpus page as the assistant uses it."""

    slug: str
    title: str
    kind: str
    url: str
    summary: str
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    related: tuple[str, ...]
    updated: str
    faq: tuple[FAQ, ...]
    facts: dict[str, str]
    body: str
    path: Path
    content_hash: str
    sources: tuple[Source, ...] = ()

    def section_url(self, section: str) -> str:
        """Return the page url with the anchor of a section."""
        if not section or section == "Summary":
            return self.url
        return f"{self.url}#{anchor(section)}"


@dataclass(frozen=True)
class Chunk:
    """A piece of a page that is indexed: a section, part of one, or an FAQ pair."""

    id: str
    slug: str
    title: str
    kind: str
    url: str
    section: str
    text: str
    unit: str = "chunk"  # "chunk", "sentence" or "question" (an FAQ question)
    chunk_id: str = ""  # for sentences: the chunk they belong to
    position: int = 0  # order of the sentence within its page

    @property
    def embed_text(self) -> str:
        """Text given to the embedding model: the title anchors short passages to the term."""
        if self.unit == "question":
            return self.text
        return f"{self.title}. {self.text}" if self.unit == "sentence" else (
            f"{self.title} ({self.section}): {self.text}")


@dataclass(frozen=True)
class Problem:
    """One thing the corpus check found wrong."""

    file: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.field}: {self.message}"


class CorpusError(ValueError):
    """The corpus cannot be loaded; the message names the file and the field."""


@dataclass
class Corpus:
    """All pages, looked up by slug."""

    pages: dict[str, Page] = field(default_factory=dict)

    def __iter__(self):
        return iter(self.pages.values())

    def __len__(self) -> int:
        return len(self.pages)

    def get(self, slug: str) -> Page | None:
        """Return the page with this slug, if any."""
        return self.pages.get(slug)


def anchor(heading: str) -> str:
    """Return the anchor a static-site generator gives a heading."""
    return re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")


def _as_list(value) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


def read_page(path: Path) -> Page:
    """Parse one page file; raise CorpusError naming the file on malformed front matter."""
    import frontmatter  # light, but only needed when the corpus is read

    raw = path.read_text(encoding="utf-8")
    try:
        post = frontmatter.loads(raw)
    except Exception as exc:  # YAML errors come in several types
        raise CorpusError(f"{path.name}: front matter: not valid YAML ({exc})") from exc
    meta = post.metadata
    faq = []
    for i, item in enumerate(meta.get("faq") or []):
        if not isinstance(item, dict) or not item.get("q") or not item.get("a"):
            raise CorpusError(f"{path.name}: faq[{i}]: needs both q and a")
        faq.append(FAQ(q=str(item["q"]).strip(), a=str(item["a"]).strip()))
    facts = meta.get("facts") or {}
    if not isinstance(facts, dict):
        raise CorpusError(f"{path.name}: facts: must be a map of key: phrase")
    sources = []
    for i, item in enumerate(meta.get("sources") or []):
        if not isinstance(item, dict) or not item.get("title"):
            raise CorpusError(f"{path.name}: sources[{i}]: needs at least a title")
        sources.append(Source(title=str(item["title"]).strip(),
                              publisher=str(item.get("publisher", "")).strip(),
                              year=str(item.get("year", "")).strip(),
                              url=str(item.get("url", "") or "").strip(),
                              kind=str(item.get("kind", "") or "").strip().lower()))
    updated = meta.get("updated", "")
    if isinstance(updated, (dt.date, dt.datetime)):
        updated = updated.isoformat()[:10]
    content_hash = hashlib.sha256((CHUNKER_VERSION + raw).encode()).hexdigest()[:16]
    return Page(
        slug=str(meta.get("slug", "")), title=str(meta.get("title", "")),
        kind=str(meta.get("kind", "")), url=str(meta.get("url", "")),
        summary=" ".join(str(meta.get("summary", "")).split()),
        aliases=_as_list(meta.get("aliases")), tags=_as_list(meta.get("tags")),
        related=_as_list(meta.get("related")), updated=str(updated), faq=tuple(faq),
        facts={str(k): " ".join(str(v).split()) for k, v in facts.items()},
        body=post.content, path=path, content_hash=content_hash, sources=tuple(sources),
    )


def page_files(corpus_dir: Path) -> list[Path]:
    """Return the page files of a corpus folder, in a stable order."""
    corpus_dir = Path(corpus_dir)
    return sorted(p for sub in ("glossary", "lessons") for p in (corpus_dir / sub).glob("*.md"))


def load_corpus(corpus_dir: Path) -> Corpus:
    """Read every page of a corpus folder; raise CorpusError if a page cannot be parsed."""
    files = page_files(corpus_dir)
    if not files:
        raise CorpusError(f"{corpus_dir}: no pages found under glossary/ or lessons/")
    corpus = Corpus()
    for path in files:
        page = read_page(path)
        corpus.pages[page.slug or path.stem] = page
    return corpus


# --- chunks --------------------------------------------------------------------------------

#: The mark of a table row's sentence id ("<chunk>::t0").
TABLE_ROW = "t"


def is_table_row(unit_id: str) -> bool:
    """True if an index unit id is a table row quoted as a sentence."""
    last = unit_id.rsplit("::", 1)[-1]
    return "::" in unit_id and last[:1] == TABLE_ROW and last[1:].isdigit()


def chunk_page(page: Page) -> list[Chunk]:
    """Cut a page into section chunks, FAQ chunks and sentences, with stable ids."""
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    headers = MarkdownHeaderTextSplitter(headers_to_split_on=[("##", "section")],
                                         strip_headers=True)
    # Long lesson sections are cut again so that one chunk stays one topic.
    sizer = RecursiveCharacterTextSplitter(chunk_size=1200, chunk_overlap=0,
                                           separators=["\n\n", "\n", ". "])
    common = dict(slug=page.slug, title=page.title, kind=page.kind, url=page.url)
    chunks: list[Chunk] = []
    position = 0

    def add(section: str, part: int, text: str) -> None:
        nonlocal position
        cid = f"{page.slug}::{anchor(section) or 'intro'}::{part}"
        chunks.append(Chunk(id=cid, section=section, text=text, **common))
        # A table's rows are quoted as sentences that name their columns (text.py), under
        # ids of their own (`::t<i>`): a row can answer a question, but never pads an answer.
        for mark, sentences in (("s", split_sentences(text)),
                                (TABLE_ROW, table_sentences(text, page.title))):
            for i, sentence in enumerate(sentences):
                chunks.append(Chunk(id=f"{cid}::{mark}{i}", section=section, text=sentence,
                                    unit="sentence", chunk_id=cid, position=position, **common))
                position += 1

    add("Summary", 0, page.summary)
    for doc in headers.split_text(_keep_paragraphs(page.body)):
        section = doc.metadata.get("section", "")
        if section == "Related terms":
            continue  # a list of links, no answer in it
        # A table is one piece, whatever its length, so that every row keeps its header.
        for part, text in enumerate(_pieces(sizer, doc.page_content)):
            add(section or "Intro", part, text.strip())
    for i, item in enumerate(page.faq):
        cid = f"{page.slug}::faq::{i}"
        text = f"{item.q} {item.a}"
        chunks.append(Chunk(id=cid, section=FAQ_SECTION, text=text, **common))
        # The question alone, so a visitor's wording can be matched to it (FAQ match first).
        chunks.append(Chunk(id=f"{cid}::q", section=FAQ_SECTION, text=item.q, unit="question",
                            chunk_id=cid, position=i, **common))
        for j, sentence in enumerate(split_sentences(item.a)):
            chunks.append(Chunk(id=f"{cid}::s{j}", section=FAQ_SECTION, text=sentence,
                                unit="sentence", chunk_id=cid, position=1000 + position, **common))
            position += 1
    return chunks


def _pieces(sizer, text: str) -> list[str]:
    """Cut a section into chunks of about the sizer's size, never inside a table."""
    parts = re.split(r"((?:^\|.*\n?)+)", text, flags=re.M)
    out: list[str] = []
    for part in parts:
        if not part.strip():
            continue
        if part.lstrip().startswith("|"):
            if out and len(out[-1]) + len(part) <= sizer._chunk_size:
                out[-1] = f"{out[-1]}\n\n{part.strip()}"
            else:
                out.append(part.strip())
        else:
            out.extend(sizer.split_text(part))
    return out


def _keep_paragraphs(body: str) -> str:
    # MarkdownHeaderTextSplitter joins lines; a blank line kept as a lone marker preserves
    # the paragraph and list-item boundaries the sentence splitter relies on.
    return re.sub(r"\n(?=[-*+] |\d+[.)] |\|)", "\n\n", body)


# --- the editor's check --------------------------------------------------------------------

def _sections(body: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^##\s+(.+?)\s*$", body, re.M)
            if not m.group(0).startswith("###")]


def _body_words(body: str) -> int:
    return len(re.findall(r"[A-Za-z0-9][\w.%/+-]*", body))


def check_corpus(corpus_dir: Path) -> list[Problem]:
    """Check every page against the format in corpus/README.md; return the problems found."""
    problems: list[Problem] = []
    pages: dict[str, Page] = {}
    files = page_files(corpus_dir)
    if not files:
        return [Problem(str(corpus_dir), "-", "no pages under glossary/ or lessons/")]
    for path in files:
        rel = f"{path.parent.name}/{path.name}"
        try:
            page = read_page(path)
        except CorpusError as exc:
            problems.append(Problem(rel, "front matter", str(exc).split(": ", 2)[-1]))
            continue
        problems.extend(_check_page(page, rel, path))
        pages[page.slug or path.stem] = page
    problems.extend(_check_cross(pages))
    return problems


def _check_page(page: Page, rel: str, path: Path) -> Iterable[Problem]:
    kind = "glossary" if path.parent.name == "glossary" else "lesson"
    yield from _check_front_matter(page, rel, path, kind)
    yield from _check_faq_and_sources(page, rel)
    yield from _check_figure_sources(page, rel)
    yield from _check_body(page, rel, kind)


def _check_front_matter(page: Page, rel: str, path: Path, kind: str) -> Iterable[Problem]:
    import frontmatter

    meta = frontmatter.loads(path.read_text(encoding="utf-8")).metadata
    for name in REQUIRED:
        if name not in meta or (meta[name] in (None, "") and name != "aliases"):
            yield Problem(rel, name, "missing")
    if page.slug != path.stem:
        yield Problem(rel, "slug", f"must equal the file name {path.stem!r}")
    if page.kind != kind:
        yield Problem(rel, "kind", f"must be {kind!r} for a page in {path.parent.name}/")
    prefix = "/glossary/" if kind == "glossary" else "/learn/"
    if page.url != f"{prefix}{path.stem}":
        yield Problem(rel, "url", f"must be {prefix}{path.stem}")
    if page.summary and len(page.summary.split()) > 30:
        yield Problem(rel, "summary", f"{len(page.summary.split())} words; at most 30")


def _check_faq_and_sources(page: Page, rel: str) -> Iterable[Problem]:
    low, high = FAQ_RANGE
    if not low <= len(page.faq) <= high:
        yield Problem(rel, "faq", f"{len(page.faq)} questions; needs {low} to {high}")
    for i, source in enumerate(page.sources):
        if not source.publisher or not re.fullmatch(r"\d{4}", source.year):
            yield Problem(rel, f"sources[{i}]", "needs title, publisher and a 4-digit year")
        if source.url and not source.url.startswith("https://"):
            yield Problem(rel, f"sources[{i}].url", "must start with https://")
    for i, item in enumerate(page.faq):
        n = len(split_sentences(item.a))
        if not 1 <= n <= 3:
            yield Problem(rel, f"faq[{i}].a", f"{n} sentences; needs 1 to 3")
    for key in page.facts:
        if key not in FACT_KEYS:
            yield Problem(rel, f"facts.{key}", f"unknown key; use {', '.join(FACT_KEYS)}")
    if page.updated and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", page.updated):
        yield Problem(rel, "updated", "must be a date YYYY-MM-DD")


# --- sources for figures ----------------------------------------------------------------

#: The kinds of source a page can cite; `market` (price lists, pricing pages, financial
#: results, analysts' cost studies) is never inferred: a source says `kind: market` itself.
SOURCE_KINDS = ("vendor", "standard", "paper", "market")
_PAPER = re.compile(r"\b(ACM|USENIX|NeurIPS|ICML|ICLR|MLSys|arXiv|ISCA|OSDI|NSDI|SIGCOMM|"
                    r"SC\d\d|IEEE Micro|IEEE/ACM|Proceedings|Journal|Hot Chips|HPCA|EuroSys)\b")
_STANDARD = re.compile(r"\b(IEEE (?:Std|Standard|802)|802\.\d|RFC ?\d+|IETF|Specification|"
                       r"Trade Association|Consortium|JEDEC|PCI-SIG|OCP)\b", re.I)
#: A price ("$5,700") needs a market source; a hardware figure ("400 Gb/s", "64 ports",
#: "1.8 TB/s") needs the vendor's document or the standard that sets it.
_FIGURE_NEEDS = (
    ("prices", re.compile(r"\$\s?\d"), ("market",)),
    ("hardware figures", re.compile(
        r"\d\s?(?:Gb/s|GB/s|Tb/s|TB/s|GT/s|Gbps|Tbps|TFLOP/?s|PFLOP/?s|kW|MW|ns|µs|"
        r"ports?|lanes?)\b"), ("vendor", "standard")),
)


def source_kind(source: Source) -> str:
    """Return what kind of source this is: vendor, standard, paper or market."""
    if source.kind:
        return source.kind
    text = f"{source.title} {source.publisher}"
    if _PAPER.search(text):
        return "paper"
    return "standard" if _STANDARD.search(text) else "vendor"


def _check_figure_sources(page: Page, rel: str) -> Iterable[Problem]:
    text = " ".join([page.summary, page.body, *(f.a for f in page.faq), *page.facts.values()])
    kinds = {source_kind(s) for s in page.sources}
    for i, source in enumerate(page.sources):
        if source.kind and source.kind not in SOURCE_KINDS:
            yield Problem(rel, f"sources[{i}].kind", f"must be one of {', '.join(SOURCE_KINDS)}")
    for what, figure, needed in _FIGURE_NEEDS:
        if figure.search(text) and not kinds.intersection(needed):
            yield Problem(rel, "sources", f"the page gives {what} but cites no "
                                          f"{' or '.join(needed)} source for them")


def _check_body(page: Page, rel: str, kind: str) -> Iterable[Problem]:
    sections = _sections(page.body)
    if kind == "glossary":
        if tuple(sections) != GLOSSARY_SECTIONS:
            missing = [s for s in GLOSSARY_SECTIONS if s not in sections]
            detail = f"missing {', '.join(missing)}" if missing else "wrong order or extra"
            yield Problem(rel, "sections", f"{detail}; needs {', '.join(GLOSSARY_SECTIONS)}")
    else:
        for needed in LESSON_MUST_CONTAIN:
            if not any(needed.lower() in s.lower() for s in sections):
                yield Problem(rel, "sections", f"no section heading containing {needed!r}")
    words = _body_words(page.body)
    if words < WORD_FLOOR.get(kind, 0):
        yield Problem(rel, "body", f"{words} words; at least {WORD_FLOOR[kind]}")
    texts = [page.summary, _quotable(page.body)] + [item.a for item in page.faq]
    for text in texts:
        for sentence in split_sentences(text):
            reason = dangling_reason(sentence)
            if reason:
                yield Problem(rel, "sentence", f"cannot stand alone, {reason}: "
                                               f"{sentence[:80]!r}")
    if re.search(r"<[a-zA-Z/][^>]*>", page.body):
        yield Problem(rel, "body", "raw HTML is not allowed")


def _quotable(body: str) -> str:
    # "Related terms" is a list of links, never quoted (chunk_page skips it too).
    return re.split(r"^##\s+Related terms\s*$", body, flags=re.M)[0]


def _check_cross(pages: dict[str, Page]) -> Iterable[Problem]:
    owner: dict[str, str] = {}
    names = {p.slug.lower(): p.slug for p in pages.values()}
    names.update({p.title.lower(): p.slug for p in pages.values()})
    for page in pages.values():
        rel = f"{'glossary' if page.kind == 'glossary' else 'lessons'}/{page.slug}.md"
        for slug in page.related:
            if slug not in pages:
                yield Problem(rel, "related", f"unknown slug {slug!r}")
            elif slug == page.slug:
                yield Problem(rel, "related", "a page cannot relate to itself")
            elif page.slug not in pages[slug].related:
                yield Problem(rel, "related", f"{slug!r} does not link back; related links "
                                              f"go both ways")
        if not any(page.slug in other.related for other in pages.values()):
            yield Problem(rel, "related", "no page links here (orphan)")
        for alias in page.aliases:
            key = alias.lower().strip()
            if key in owner and owner[key] != page.slug:
                yield Problem(rel, "aliases", f"{alias!r} also belongs to {owner[key]}")
            elif names.get(key, page.slug) != page.slug:
                yield Problem(rel, "aliases", f"{alias!r} is the title or slug of "
                                              f"{names[key]}")
            owner.setdefault(key, page.slug)
