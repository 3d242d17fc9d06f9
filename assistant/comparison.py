"""Answers to "X vs Y": the sentence that compares them (or the FAQ that asks it, with its
Yes or No when it is a yes/no question), both definitions, a side-by-side of their facts,
and the lesson that covers both."""

from __future__ import annotations

from .answer import Answer
from .compose import (
    CitationList,
    _learned_order,
    against_faq,
    authored_depends,
    borrowed_polar_faq,
    follow_ups,
    repeats,
    templates,
)
from .corpus import FACT_KEYS, FACT_LABELS, Chunk, Corpus, Page
from .draft import Draft, candidates
from .faq import FAQMatch, faq_match
from .intent import Intent
from .leads import LEADS, lead_comparison, lead_sentence
from .polarity import judged_words, opening, without_opening
from .verdict import Verdict, reading


def _comparison_lead(draft: Draft) -> tuple[FAQMatch | None, Verdict | None, list[Chunk],
                                            list[tuple[Chunk, float]]]:
    """What leads an answer to "X vs Y": a Yes or No when it is a yes/no question the corpus
    settles, else the FAQ that asks it, else the sentence that compares (or tells when to
    choose which)."""
    faq = faq_match(draft)
    pool = candidates(draft)
    settled = None
    if draft.shape.intent is Intent.YES_NO and not (faq is not None and faq.polar) \
            and not authored_depends(faq):
        # "is ib faster than rocev2?" names two sides but is still a yes/no question: an
        # FAQ asked the same way answers it as it would outside a comparison
        faq = borrowed_polar_faq(draft) or faq
    rule = LEADS[draft.shape.intent] if draft.shape.intent in (Intent.CHOICE, Intent.CAUSE) \
        else lead_comparison
    lead = rule(draft, pool)
    ranked = _learned_order(draft, pool, lead, [])
    if draft.shape.intent is Intent.YES_NO and not (faq is not None and faq.polar):
        # the same readings as outside a comparison: the rules', a denial the ranker leads
        # with, a labelled question asked the same way ("does gdr work over rocev2 too or
        # only ib?")
        settled = reading(draft, pool, ranked)
        if settled is not None and against_faq(faq, settled):
            settled = None
    if settled is not None:
        return faq, settled, [settled[1]], ranked
    if faq is not None:
        return faq, None, [faq.sentences[0]], ranked
    # "which is better for 64 GPUs, RoCE or IB": when to choose which leads, unless the
    # learned order puts another sentence first, as for any other question (held-out dev:
    # answer-first 0.829 -> 0.840)
    if ranked:
        lead = ranked[0][0]
    return faq, None, [lead] if lead is not None else [], ranked


#: How sure the sentence ranker must be of a second sentence to quote it before the two
#: definitions.
SECOND_AT = 0.5


def compose_comparison(draft: Draft) -> Answer:
    """Answer "X vs Y": the sentence that compares them (or the FAQ that asks it), both
    definitions, a side-by-side from their facts, and the lesson if there is one."""
    t = templates()["comparison"]
    cites = CitationList(draft.corpus, draft.site_url)
    parts: list[str] = []
    pages = [draft.corpus.pages[s] for s in draft.compare[:2]]
    faq, settled, quoted, ranked = _comparison_lead(draft)
    verdict = settled[0] if settled is not None else ""
    # the learned order's next sentence, when the ranker is sure it holds what was asked
    for sentence, p in ranked[:3]:
        if p >= SECOND_AT and sentence not in quoted and not any(
                repeats(draft.retriever, sentence, q) for q in quoted):
            quoted.append(sentence)
            break
    for page in pages:
        lead = lead_sentence(page, draft.retriever)
        if lead is not None and not any(repeats(draft.retriever, lead, q) for q in quoted):
            quoted.append(lead)
    # an FAQ's Yes or No answers a question that judges alike ("Is a rail-optimized network
    # the same as a fat-tree?" No is not "is rail optimized better than fat tree?" No)
    answered = draft.shape.intent is Intent.YES_NO and (settled is not None or (
        faq is not None and faq.polar
        and judged_words(draft.question) == judged_words(faq.question)))
    for i, sentence in enumerate(quoted[:4]):
        n = cites.cite(sentence.slug, sentence.section, sentence.text)
        text = (opening(verdict, sentence.text) if i == 0 and answered
                else without_opening(sentence.text))
        parts.append(f"{text} [{n}]")
    text = " ".join(parts)
    rows = [k for k in FACT_KEYS if any(k in p.facts for p in pages)]
    if len(pages) == 2 and rows and all(p.facts for p in pages):
        marks = "".join(f"[{cites.cite(p.slug, 'Summary')}]" for p in pages)
        header = f"| | {_cell(pages[0].title)} | {_cell(pages[1].title)} |"
        table = [header, "|---|---|---|"]
        for key in rows:
            table.append(f"| {FACT_LABELS[key]} | {_cell(pages[0].facts.get(key, '-'))} | "
                         f"{_cell(pages[1].facts.get(key, '-'))} |")
        text += f"\n\n{t['table_intro']} {marks}:\n\n" + "\n".join(table)
    lesson = covering_lesson(draft.corpus, [p.slug for p in pages])
    if lesson is not None:
        n = cites.cite(lesson.slug, "Summary", lesson.summary)
        text += f"\n\n{t['lesson'].format(title=lesson.title)} [{n}]."
    retrieval = draft.retrieval
    return Answer(text=text, citations=cites.build(), retrieved=retrieval.slugs,
                  kind="comparison", subject=pages[0].slug,
                  confidence=max(retrieval.best_similarity, 0.5),
                  suggestions=follow_ups(draft.corpus, lesson.slug if lesson else pages[0].slug),
                  intent=draft.shape.intent.value, faq=faq.ref if faq else "",
                  gap="yes/no question the corpus does not settle"
                  if draft.shape.intent is Intent.YES_NO and not (faq and faq.polar)
                  and settled is None else "")


def covering_lesson(corpus: Corpus, slugs: list[str]) -> Page | None:
    """Return the lesson that compares these pages, if the corpus has one."""
    titles = [corpus.pages[s].title.lower() for s in slugs]
    for page in corpus:
        if page.kind != "lesson":
            continue
        name = page.title.lower()
        if all(t in name for t in titles) or all(s in page.slug for s in slugs):
            return page
    return None


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")
