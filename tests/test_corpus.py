import re
from pathlib import Path

import pytest

from assistant.corpus import GLOSSARY_SECTIONS, check_corpus, chunk_page, load_corpus, read_page
from assistant.text import split_sentences

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

GLOSSARY = """infiniband rdma nvlink roce nvswitch gpudirect-rdma gpudirect-storage nccl ethernet
ultra-ethernet iwarp priority-flow-control ecn dcqcn congestion-control lossless-fabric
adaptive-routing sharp all-reduce collective-communication fat-tree rail-optimized-topology
oversubscription bisection-bandwidth latency bandwidth infiniband-generations connectx dpu pcie
scale-up-vs-scale-out nvl72 subnet-manager queue-pair kernel-bypass distributed-training
data-parallelism tensor-parallelism pipeline-parallelism scaling-efficiency effective-compute
gpu-hour mfu optical-transceiver inference-throughput""".split()
LESSONS = """why-networking-matters infiniband-vs-roce nvlink-vs-infiniband how-all-reduce-works
reading-a-cluster-quote estimating-training-cost estimating-serving-cost
lossless-ethernet-for-rdma""".split()


def test_every_required_page_exists():
    missing = [s for s in GLOSSARY if not (CORPUS / "glossary" / f"{s}.md").exists()]
    missing += [s for s in LESSONS if not (CORPUS / "lessons" / f"{s}.md").exists()]
    assert not missing, f"pages missing: {missing}"


def test_the_real_corpus_passes_its_check():
    problems = check_corpus(CORPUS)
    assert not problems, "\n".join(map(str, problems))


def test_cost_lessons_carry_the_calculators_figures():
    training = (CORPUS / "lessons" / "estimating-training-cost.md").read_text()
    serving = (CORPUS / "lessons" / "estimating-serving-cost.md").read_text()
    for figure in ("179,200", "232,960", "53,760"):
        assert figure in training
    assert "0.56" in serving
    assert "illustrative" in training.lower() and "illustrative" in serving.lower()


def _write(root: Path, slug: str, text: str, kind: str = "glossary") -> Path:
    folder = root / ("glossary" if kind == "glossary" else "lessons")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slug}.md"
    path.write_text(text, encoding="utf-8")
    return path


SOURCES = ("sources:\n  - title: Alpha specification\n    publisher: Alpha Consortium\n"
           "    year: 2025\n")


def _page(slug="alpha", aliases="[Alpha-1]", related="[partner]", faq=None, sections=None,
          words=200, extra="", pronoun=False, sources=SOURCES):
    faq = faq if faq is not None else [("What is alpha?", "Alpha is a test term."),
                                       ("Why alpha?", "Alpha exists for tests.")]
    faq_yaml = "\n".join(f"  - q: {q}\n    a: {a}" for q, a in faq)
    sections = sections if sections is not None else GLOSSARY_SECTIONS
    filler = " ".join(["Alpha carries packets between servers."] * (words // 5))
    body = "\n\n".join(f"## {s}\n{filler if i == 0 else 'Alpha is fine here.'}"
                       for i, s in enumerate(sections))
    if pronoun:  # in the first section: "Related terms" (last) is never quoted
        body = body.replace("## Definition\n", "## Definition\nIt breaks the rule. ", 1)
    return (f"---\ntitle: {slug.title()}\nslug: {slug}\nkind: glossary\nurl: /glossary/{slug}\n"
            f"summary: {slug.title()} is a test term.\naliases: {aliases}\ntags: [test]\n"
            f"related: {related}\nupdated: 2026-11-22\nfaq:\n{faq_yaml}\n{sources}{extra}---\n"
            f"{body}\n")


def _problems(tmp_path, **pages):
    """Check the given pages; a partner page links to "alpha" so that it is no orphan."""
    pages.setdefault("partner", _page("partner", aliases="[Partner-1]", related="[alpha]"))
    for slug, text in pages.items():
        _write(tmp_path, slug, text)
    return [str(p) for p in check_corpus(tmp_path)]


def test_a_good_page_has_no_problems(tmp_path):
    assert _problems(tmp_path, alpha=_page()) == []


@pytest.mark.parametrize("page, expected", [
    (_page().replace("summary: Alpha is a test term.\n", ""),
     r"glossary/alpha.md: summary: missing"),
    (_page(related="[nowhere]"), r"glossary/alpha.md: related: unknown slug 'nowhere'"),
    (_page(faq=[("Only one?", "Only one question.")]), r"alpha.md: faq: 1 questions; needs 2 to 8"),
    (_page(sections=GLOSSARY_SECTIONS[:-1]), r"alpha.md: sections: missing Related terms"),
    (_page(words=20), r"alpha.md: body: \d+ words; at least 180"),
    (_page(pronoun=True), r"alpha.md: sentence: cannot stand alone, opens with 'It'"),
    (_page(extra="facts:\n  colour: blue\n"), r"alpha.md: facts.colour: unknown key"),
    (_page().replace("url: /glossary/alpha", "url: /learn/alpha"), r"alpha.md: url: must be"),
    (_page().replace("slug: alpha", "slug: beta"), r"alpha.md: slug: must equal the file name"),
    (_page(sources=""), r"alpha.md: sources: missing"),
    (_page(related="[]"), r"partner.md: related: 'alpha' does not link back"),
    (_page().replace("Alpha is fine here.",
                                                        "This makes the fabric faster:"),
     r"alpha.md: sentence: cannot stand alone"),
    (_page().replace("Alpha is fine here.", "Skipping alpha is also a mistake, because it breaks."),
     r"alpha.md: sentence: cannot stand alone, .*mistake"),
    (_page(faq=[("What is alpha?", "The main kinds are alpha and beta."),
                ("Why alpha?", "Alpha exists for tests.")]),
     r"alpha.md: sentence: cannot stand alone, .*kinds'"),
])
def test_each_problem_names_file_and_field(tmp_path, page, expected):
    problems = _problems(tmp_path, alpha=page)
    assert any(re.search(expected, p) for p in problems), problems


MARKET = ("  - title: Alpha price list\n    publisher: Alpha Inc.\n    year: 2026\n"
          "    kind: market\n")


@pytest.mark.parametrize("figure, sources, expected", [
    ("An alpha port costs $500 (illustrative).", SOURCES,
     r"alpha.md: sources: the page gives prices but cites no market source"),
    ("An alpha port runs at 400 Gb/s.", SOURCES.replace("specification", "paper") .replace(
        "Alpha Consortium", "ACM SIGCOMM"), r"alpha.md: sources: the page gives hardware figures"),
    ("An alpha port costs $500 (illustrative).", SOURCES + MARKET.replace("market", "rumour"),
     r"alpha.md: sources\[1\].kind: must be one of"),
])
def test_a_figure_needs_a_source_of_its_kind(tmp_path, figure, sources, expected):
    page = _page(sources=sources).replace("Alpha is fine here.", figure, 1)
    problems = _problems(tmp_path, alpha=page)
    assert any(re.search(expected, p) for p in problems), problems


def test_figures_with_matching_sources_pass(tmp_path):
    page = _page(sources=SOURCES + MARKET).replace(
        "Alpha is fine here.", "An alpha port runs at 400 Gb/s and costs $500 (illustrative).", 1)
    assert _problems(tmp_path, alpha=page) == []


def test_a_page_nothing_links_to_is_an_orphan(tmp_path):
    problems = _problems(tmp_path, alpha=_page(), beta=_page("beta", aliases="[Beta-1]",
                                                             related="[]"))
    assert "glossary/beta.md: related: no page links here (orphan)" in problems, problems


def test_duplicate_alias_across_pages_is_reported(tmp_path):
    problems = _problems(tmp_path, alpha=_page(aliases="[Shared]"),
                         beta=_page("beta", aliases="[shared]"))
    assert any("aliases: 'shared' also belongs to alpha" in p for p in problems), problems


def test_malformed_front_matter_is_a_problem_not_a_crash(tmp_path):
    problems = _problems(tmp_path, alpha="---\ntitle: [unclosed\n---\nbody\n")
    assert problems and "glossary/alpha.md: front matter" in problems[0]


def test_sentences_split_on_full_stops_and_list_items():
    text = "RoCE v2 runs over UDP. RoCE v2 uses port 4791.\n\n- PFC pauses one priority.\n| a | b |"
    assert split_sentences(text) == ["RoCE v2 runs over UDP.", "RoCE v2 uses port 4791.",
                                      "PFC pauses one priority."]


def test_decimals_do_not_split_sentences():
    assert split_sentences("PCIe Gen5 gives about 63.0 GB/s per direction. NVLink is faster.") \
        == ["PCIe Gen5 gives about 63.0 GB/s per direction.", "NVLink is faster."]


def test_chunks_have_stable_ids_metadata_and_one_chunk_per_faq():
    page = read_page(CORPUS / "glossary" / "roce.md")
    first, second = chunk_page(page), chunk_page(page)
    assert [c.id for c in first] == [c.id for c in second]
    assert len({c.id for c in first}) == len(first)
    faq_chunks = [c for c in first if c.section == "FAQ" and c.unit == "chunk"]
    assert len(faq_chunks) == len(page.faq)
    sections = {c.section for c in first if c.unit == "chunk"}
    assert {"Definition", "How it works", "FAQ"} <= sections
    assert all(c.slug == "roce" and c.url == "/glossary/roce" for c in first)


def test_load_corpus_reads_every_page():
    corpus = load_corpus(CORPUS)
    assert len(corpus) >= 53
    assert corpus.get("nvlink").kind == "glossary"
    assert corpus.get("estimating-training-cost").url == "/learn/estimating-training-cost"


def _readme_examples():
    """The (rejected, written to stand alone) pairs of the table in corpus/README.md."""
    text = (CORPUS / "README.md").read_text(encoding="utf-8")
    table = text.split("| leans on its context because it...", 1)[1].split("\n\n", 1)[0]
    pairs = []
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip().strip("|").split(" | ")]
        quoted = [re.fullmatch(r'"(.*)"', c) for c in cells[1:3]]
        pairs.append(tuple(m.group(1) if m else None for m in quoted))
    return pairs


def test_the_readme_examples_are_judged_as_the_readme_says():
    from assistant.text import dangling_reason

    pairs = _readme_examples()
    assert len(pairs) >= 15
    for rejected, written in pairs:
        assert rejected and dangling_reason(rejected), rejected
        if written and not written.endswith("..."):
            assert dangling_reason(written) is None, (written, dangling_reason(written))
