"""FAQ question and staff answer anchors: the page and the chat's citations agree."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from conftest import CORPUS

from assistant.answer import Answer, Citation
from assistant.corpus import load_corpus
from assistant.site import Site
from assistant.site.anchors import cited_fragment, faq_anchors, support_anchor
from assistant.web.render import answer_messages, new_questions, render_answer


@dataclass(frozen=True)
class Staff:
    id: int
    question: str
    answer: str
    slug: str


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(CORPUS)


def test_every_faq_question_has_a_unique_anchor_on_its_page(corpus):
    for page in corpus:
        anchors = faq_anchors(page)
        assert len(anchors) == len(set(anchors)) == len(page.faq), page.slug
        html = Site(corpus).page(page.slug)
        for a in anchors:
            assert f'<dt id="{a}">' in html, (page.slug, a)


def test_a_faq_citation_links_the_question_it_quotes(corpus):
    page = corpus.pages["nvlink"]
    item = next(i for i in page.faq if i.q == "How fast is NVLink 6?")
    first = item.a.split(". ")[0] + "."
    assert cited_fragment(page, first) == "faq-how-fast-is-nvlink-6"
    answer = Answer(text="Fast. [1]", citations=[Citation(1, "nvlink", "NVLink", "", "FAQ",
                                                          first)])
    md = render_answer(answer, corpus, "https://glossary.example")
    assert "(https://glossary.example/glossary/nvlink#faq-how-fast-is-nvlink-6" in md
    assert "NVLink — FAQ\\: How fast is NVLink 6?" in md
    # A passage that quotes no question links the FAQ section, as before.
    assert cited_fragment(page, "Something the FAQ never says.") is None


def test_a_staff_answer_citation_links_its_entry_and_the_page_shows_it(corpus):
    entry = Staff(7, "Is NVLink sold separately?", "NVLink is not sold as a separate product "
                  "for ordinary servers.", "nvlink")
    page = corpus.pages["nvlink"]
    assert cited_fragment(page, entry.answer, [entry]) == support_anchor(7)
    answer = Answer(text="No. [1]", citations=[Citation(1, "nvlink", "NVLink", "", "FAQ",
                                                        entry.answer)])
    assert "#from-support-7" in render_answer(answer, corpus, staff=[entry])
    html = Site(corpus, staff=lambda: [entry]).page("nvlink")
    assert 'id="from-support-7"' in html and "From support" in html
    assert entry.question in html


def test_follow_ups_leave_out_what_was_asked(corpus):
    assert new_questions(["How fast is NVLink 6?", "Can NVLink connect two servers?",
                          "can nvlink connect two servers"], ["how fast is nvlink 6"]) == [
        "Can NVLink connect two servers?"]
    answer = Answer(text="Fast.", suggestions=["How fast is NVLink 6?", "Is NVLink faster?"])
    [message] = answer_messages(answer, corpus, asked=["How fast is NVLink 6?"])
    assert [o["value"] for o in message["options"]] == ["Is NVLink faster?"]
