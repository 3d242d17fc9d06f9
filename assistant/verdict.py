"""Whether the corpus says yes or no to a yes/no question: `settle` finds the quoted
sentence that does (with polarity.py's readings), or leaves the question unsettled."""

from __future__ import annotations

import re
from typing import NamedTuple

from .corpus import Chunk
from .draft import COVERAGE_BONUS, Candidate, Draft, coverage, coverage_parts, names_page
from .faq import HEDGED
from .intent import ZERO
from .polarity import (
    ALTERNATIVE,
    POINTS_BACK,
    POLAR_OPENING,
    YES_NO_OPENING,
    asks_identity,
    explain,
    judged_words,
    mistake_qualifiers,
    qualifiers,
    same_qualifiers,
    turned_alike,
    turning_words,
    without_opening,
)
from .words import content_stems, stems_of

#: A sentence must be at least this close to a yes/no question to settle it.
SETTLE_FLOOR = 0.5


#: Judgement words a yes/no question can ask about. Stemming maps "expensive" to "cost" so
#: that retrieval finds cost sentences, but a sentence that states a cost does not say it is
#: expensive: to answer Yes or No it must use a word of the same judgement.
_JUDGEMENTS = (
    (re.compile(r"\b(expensive|costly|pricey|pricy)\b", re.I),
     re.compile(r"\b(expensive|costly|cost\s+more|premium|pricey)\b", re.I)),
    (re.compile(r"\b(cheap|cheaper|inexpensive|affordable)\b", re.I),
     re.compile(r"\b(cheap\w*|inexpensive|affordable|cost\s+less|lower[- ]cost|(lowers?|"
                r"reduces?|cuts?|spreads?)\s+(the\s+)?(\w+\s+)?cost)", re.I)),
    (re.compile(r"\bslow(s|ing)?\s+(\w+\s+)?down\b|\b(is|are|get|gets|become|run|runs)\s+"
                r"(\w+\s+){0,2}(slow|slower)\b", re.I),
     re.compile(r"\b(slow\w*|throttl\w*|bottleneck\w*|limits?|congest\w*)\b", re.I)),
    (re.compile(r"\b(make|makes|is|are|run|runs|get|gets)\s+(\w+\s+){0,3}(fast|faster|"
                r"quicker)\b", re.I),
     re.compile(r"\b(fast\w*|quick\w*|speeds?\s+up|higher\s+throughput)\b", re.I)),
    # "is a single node's result good enough?": a sentence that says what should be done
    # ("a quote should include nccl-tests results") does not say whether this suffices
    (re.compile(r"\b(enough|sufficient|suffices?|adequate)\b", re.I),
     re.compile(r"\b(enough|sufficient|suffices?|adequate|only|says\s+nothing|"
                r"insufficient|too\s+(few|small|slow|little|low))\b", re.I)),
    (re.compile(r"\b(same|identical|different|differ)\b", re.I),
     re.compile(r"\b(same|identical|different|differs?|distinct|another\s+name|unlike|"
                r"rather\s+than|instead\s+of|confus\w*)\b", re.I)),
)


_UNIVERSAL = re.compile(r"\b(all|every|each|any|always|ever|literally|completely|entirely|"
                        r"totally|" + ZERO + r")\b", re.I)


#: Opposites: a sentence that says "below" where the question says "above" answers another
#: question (and its Yes or No would be the wrong way round).
_OPPOSITES = tuple((re.compile(rf"\b({a})\b", re.I), re.compile(rf"\b({b})\b", re.I)) for a, b in (
    ("above", "below"), ("more", "less|fewer"), ("higher", "lower"), ("before", "after"),
    ("faster", "slower"), ("larger|bigger", "smaller"), ("increases?", "decreases?|reduces?"),
    ("over", "under"), ("inside", "outside"), ("always", "never")))


def _judges_alike(question: str, sentence: str) -> bool:
    """True unless the question asks for a judgement the sentence does not make, or the
    sentence says the opposite word ("below" for "above")."""
    if not all(says.search(sentence) for asks, says in _JUDGEMENTS if asks.search(question)):
        return False
    for a, b in _OPPOSITES:
        for mine, other in ((a, b), (b, a)):
            if (mine.search(question) and not other.search(question)
                    and other.search(sentence) and not mine.search(sentence)):
                return False
    return True


#: A property and words that state its opposite: "Standard Ethernet drops packets when a queue
#: overflows" answers "is normal Ethernet lossless?" with No.
_ANTONYMS = tuple((re.compile(rf"\b({a})\b", re.I), re.compile(rf"\b({b})", re.I)) for a, b in (
    ("lossless", r"lossy|drops?\s+(packets|frames)|loses\s+packets"),
    ("lossy", r"lossless"),
    ("routable", r"cannot\s+be\s+routed|not\s+routable|cannot\s+leave\s+one\s+layer-2"),
    # "is electricity a big part of the rental price?" - "under 2 percent of" it
    (r"(big|large|major|significant|huge|substantial)\s+(part|share|portion|fraction|chunk)",
     r"small\s+(part|share|portion|fraction)|(under|less\s+than|below)\s+\d+(\.\d+)?\s*"
     r"(percent|%)|negligible|minor\s+(part|share)"),
))


_LOSS = re.compile(r"\b(lost|lose|loses|losing|loss|drop|drops|dropped|dropping)\b", re.I)


def _contradicts(draft: Draft, sentence: str) -> bool:
    """True if the sentence states the opposite of the property the question asks about, and
    names the rest of the question."""
    if draft.shape.negated:
        return False
    for asks, opposite in _ANTONYMS:
        said = asks.search(draft.question)
        if not (said and opposite.search(sentence)) or asks.search(sentence) \
                or opposite.search(draft.question) or (
                    _LOSS.search(draft.question) and not _UNIVERSAL.search(draft.question)):
            continue  # "can packets still get *lost* on a *lossless* fabric?" asks of both
        # The other terms must be named ("Ethernet"); the property may itself be a term.
        others = [draft.corpus.pages[t] for t in draft.terms]
        others = [p for p in others if not asks.search(" ".join((p.title, *p.aliases)))]
        if not all(names_page(sentence, p) for p in others):
            continue
        rest = draft.words - stems_of(said.group(0))
        if not rest or len(rest & stems_of(sentence)) * 2 >= len(rest):
            return True
    return False




def _own_turns_away(draft: Draft, sentence: Chunk) -> bool:
    """True if the FAQ whose answer a Yes/No sentence opens turns away from the question
    (turns_away): its Yes is said with a denial of what the visitor asks."""
    asked = draft.retriever.faq_question_of(sentence.chunk_id)
    return asked is not None and turns_away(
        draft.question, asked, tuple(draft.retriever.sentences_of_chunk(sentence.chunk_id)))


def _asks_as_much(draft: Draft, sentence: Chunk) -> bool:
    """True if the FAQ a Yes/No sentence answers names every term and qualifier asked."""
    asked = draft.retriever.faq_question_of(sentence.chunk_id)
    if asked is None:
        return True
    # What the FAQ asked, and what its answer adds ("... with RoCE as well as InfiniBand")
    said = f"{asked} {sentence.text}"
    theirs = {m.slug for m in draft.retriever.terms.find(said)} | {sentence.slug}
    # ...not of one term in place of another ("Is Spectrum-X InfiniBand?" is not "is
    # spectrum-x just ethernet?")
    faq_terms = {m.slug for m in draft.retriever.terms.find(asked)}
    swapped = (faq_terms - set(draft.terms) - {sentence.slug, draft.subject}
               and set(draft.terms) - faq_terms - {sentence.slug})
    # ... and asked the same way round ("an NCCL *equivalent*" is not "does NCCL run"), a
    # comparison as a comparison ("is all-to-all rougher on the fabric than allreduce?" is
    # not "Can a fabric for MoE training be sized from all-reduce benchmark results?")
    return (draft.terms <= theirs and same_qualifiers(draft.question, said) and not swapped
            and turned_alike(draft.question, asked)
            and bool(_THAN.search(draft.question)) == bool(_THAN.search(asked)))


_THAN = re.compile(r"\bthan\b", re.I)


#: Another FAQ's own Yes or No settles a question only when that FAQ's question is at least
#: this close to it (cosine of the two questions).
OWN_AT = 0.5


class Verdict(NamedTuple):
    """A Yes or No ("" when the sentence opens with its own), the sentence that says it, and
    the reading that found it (contradicts, own, mistake, deny: polarity.py)."""

    word: str
    sentence: Chunk
    how: str


#: Whether a "common mistake is assuming X" sentence answers "is X?" with No. On the five
#: blind test splits scored so far (rounds 2, 4, 6, 7 and 8) that No was right 13 times and
#: wrong 5, the largest source of wrong words (FAQ answers: 150 right, 3 wrong; denials 14
#: and 0): a wrong No costs more than a missing one, so the sentence may still lead, without
#: the word.
MISTAKE_SAYS_NO = False


def _mistake_says_no(draft: Draft, sentence: str, lent: bool) -> bool:
    """True if a mistake sentence may answer the question with No (MISTAKE_SAYS_NO)."""
    if not MISTAKE_SAYS_NO or not draft.terms:
        return False
    if POINTS_BACK.search(draft.question) and not lent:
        # "does that also hit ...?", "is that actually non-blocking?": part of the claim
        # is in the conversation or the message, not in what a general sentence says
        return False
    return _same_case(draft, sentence)  # a mistake of NVL72 racks is no No for NVLink


def _same_case(draft: Draft, sentence: str) -> bool:
    """True unless the mistake a sentence names is qualified ("many NVL72 racks") and the
    question, with its subject, names none of those qualifiers ("can an NVLink domain span
    more than one rack?" is answered Yes elsewhere, for NVLink in general)."""
    named = mistake_qualifiers(sentence)
    if not named:
        return True
    page = draft.corpus.pages.get(draft.subject) if draft.subject else None
    return bool(named & qualifiers(f"{draft.question} {page.title if page else ''}"))


def settle(draft: Draft, pool: list[Candidate]) -> Verdict | None:
    """Find the quoted sentence that says yes or no to the question (polarity.py)."""
    if not draft.words and len(draft.terms) < 2:
        return None  # "do I need one?": no claim beyond the subject to say yes or no to

    # "does it work on RoCE too?" after SHARP: the pronoun is the subject the conversation
    # lent, not a part of the claim left in the message (a mistake named of that subject
    # may then say No; a restatement still may not say Yes: "does that also hit ...?")
    lent = bool(draft.subject) and draft.subject not in {
        m.slug for m in draft.retriever.terms.find(draft.question)}
    asked_alike = {q.chunk_id: sim for q, sim in draft.retriever.faq_questions(
        draft.retrieval.vector, limit=60)}
    ranked = sorted((c for c in pool if c.similarity >= SETTLE_FLOOR),
                    key=lambda c: c.score + COVERAGE_BONUS * coverage(draft, c.sentence.text),
                    reverse=True)
    alternative = bool(ALTERNATIVE.search(draft.question))
    universal = bool(_UNIVERSAL.search(draft.question))
    for rank, c in enumerate(ranked[:8]):
        if not same_qualifiers(draft.question, c.sentence.text):
            continue  # said of RoCE v2 or ZeRO stage 3, not of the v1 or stage 2 asked about
        if _INSTRUCTS.match(c.sentence.text):
            continue  # "Compare ... on cost per GPU, not on switch price alone" tells what
            # to do; its "not" says nothing of whether optics cost more than switches
        # The sentence must name the question's terms; a clause of it, the claim's words.
        if _contradicts(draft, c.sentence.text) and not alternative:
            return Verdict("No", c.sentence, "contradicts")
        named = coverage_parts(draft, c.sentence.text)[0]
        if named < 0.66:
            continue
        if not _judges_alike(draft.question, c.sentence.text):
            continue
        word, how = explain(c.sentence.text, lambda text: coverage_parts(draft, text)[1],
                            draft.shape.negated, closest=rank < 3,
                            universal=universal,
                            asked=draft.question)
        if how == "own" and not (_asks_as_much(draft, c.sentence)
                                 and asked_alike.get(c.sentence.chunk_id, 0.0) >= OWN_AT
                                 and not _own_turns_away(draft, c.sentence)):
            # "Yes, iWARP is still supported" does not answer "iWARP with RoCE?", nor "Yes,
            # NCCL runs over RoCE" "can IB and RoCE share one fabric?": another FAQ's Yes/No
            # stands only for a question close to the one it answers
            continue
        if alternative and how != "own":
            # "real congestion control, or just the credit thing?": a No read off a sentence
            # may deny either option; only an answer written for the question says which
            continue
        if (how == "mistake" and not _mistake_says_no(draft, c.sentence.text, lent)) or (
                how == "deny" and _CONDITIONAL.search(c.sentence.text) and not universal):
            # "never drops packets because of full buffers" denies "zero packet loss ever?"
            # but not "can packets still get lost?"
            continue
        if word is not None:
            return Verdict(word, c.sentence, how)
    return None


#: A denial said only under a condition or of one cause ("A lossless fabric ... never drops
#: packets because of full buffers" does not answer "can packets still get lost on a
#: lossless fabric?").
_CONDITIONAL = re.compile(r"\b(not|cannot|can'?t|never|no)\b[^,;.]*\b(when|if|unless|while|"
                          r"until|once|as\s+long\s+as|because\s+of)\b", re.I)


#: A sentence that tells the reader what to do (a checklist step, advice).
_INSTRUCTS = re.compile(r"(compare|set|enable|configure|map|mark|check|run|use|turn|assign|"
                        r"verify|measure|apply|keep|confirm|disable|tune|match|add|plan|pick|"
                        r"choose|start|size|budget|count|ask|test|treat|put|place|leave|"
                        r"reserve|price|buy|watch|expect)\s", re.I)
#: A denial in a main clause: "InfiniBand and RoCE v2 cannot be mixed within one fabric".
_DENIES = re.compile(r"\b(not|cannot|can'?t|never|no)\b", re.I)
#: Where a sentence's main clause ends: a comma or semicolon, or a reason or contrast.
_MAIN_CLAUSE = re.compile(r"[,;:]|\s(?:because|while|but|although|though|since|so|whereas|"
                          r"which|when|unless|as)\s", re.I)


#: How sure the sentence ranker must be that a denying lead holds what was asked. On golden
#: + dev the denials it led with at 0.64 or more were right 34 of 34; the two under 0.5 led
#: with an off-topic sentence ("can the sm config hurt allreduce perf?" -> "a DPU's Arm
#: cores do not speed up NCCL collectives"). Held-out dev (evals/holdout.py): 0.6 -> 0.5
#: yes/no 0.654 -> 0.658, wrong polarity 0.
DENY_AT = 0.5
#: Turning words that flip what a question claims ("with no pfc", "without any
#: infiniband", "only", "lossy"): a denial may then be the Yes asked for.
_FLIPS = re.compile(r"\b(not|no|never|cannot|can'?t|doesn'?t|dont|don'?t|isn'?t|isnt|doesnt|"
                    r"aren'?t|won'?t|without|skip\w*|avoid\w*|bypass\w*|pointless|unnecessary|"
                    r"only|lossy|none|nothing|" + ZERO + r"|off|less|fewer|instead|w/o)\b", re.I)


def lead_denies(draft: Draft, sentence: Chunk) -> bool:
    """True when the sentence the learned ranker leads with denies, in its main clause, what
    a plainly asked yes/no question claims ("can we run ib and roce in the same rdma fabric"
    -> "InfiniBand and RoCE v2 cannot be mixed within one RDMA fabric, because ..."): the
    question neither turns ("without", "only", "not"), points back at the conversation nor
    offers an alternative, and the clause names every term it asks about, with the same qualifiers.
    Only No: a positive sentence that names the question's words was right on golden and a
    coin flip on the blind splits (the restatement Yes, removed)."""
    q = draft.question
    turns = turning_words(q)
    if (draft.shape.negated or _FLIPS.search(q) or ALTERNATIVE.search(q) or not draft.terms
            or (draft.conversation and POINTS_BACK.search(q))):
        # ...and it names a term: without one, "names every term" says nothing ("should i buy
        # nvda stock right now?" is no question about NVLink's price). A "that" points back
        # only in a conversation ("is that ok for an inference cluster?" after 2:1 at the
        # leaf); in a first message it points into the message ("my script says 120% mfu.
        # is that possible?"): dev 6 of 6 right, where in conversations 5 right and 1 wrong.
        return False
    text = sentence.text
    opened = POLAR_OPENING.match(text)
    if opened and opened.group(0).lower() != "no":
        return False  # another FAQ's Yes or "It depends": the FAQ readings decide those
    if opened:
        # "No, InfiniBand does not use PFC, because ...": another FAQ's No, read like any
        # sentence once the word is dropped (its main clause must deny what is asked), when
        # that FAQ is asked the same way round ("Does a single GPU server need
        # InfiniBand?" is not "does infiniband work with amd gpus")
        asked = draft.retriever.faq_question_of(sentence.chunk_id)
        if asked is not None and not turned_alike(q, asked):
            return False
        text = without_opening(text)
    main = _MAIN_CLAUSE.split(text, maxsplit=1)[0]
    # A denial at least as general as the question covers it ("a single GPU server does not
    # need InfiniBand" answers "... on one 8x h100 box, do we need infiniband?"); one
    # narrower ("RoCE v1 cannot be routed") does not answer for the rest ("can roce be routed?")
    # A question turned by a word that flips no polarity ("is nvlink gonna replace ib?") is
    # denied by a clause turned by the same word ("NVLink does not replace InfiniBand").
    named, said = coverage_parts(draft, main)
    # ...from the page the question is about, or saying a word of its claim besides the
    # terms: "can the sm config hurt allreduce perf?" (about NCCL) is not denied by the DPU
    # page's "a DPU's Arm cores do not speed up NCCL collectives"
    return (bool(_DENIES.search(main)) and named >= 1.0 and said > 0
            and turns <= turning_words(main)
            and (same_qualifiers(q, main) or qualifiers(main) <= qualifiers(q)))



#: A negation or contrast in an FAQ answer's sentence (compare `turns_away`).
_CONTRAST = re.compile(r"\b(not|never|instead\s+of|rather\s+than|without|cannot|unlike|"
                       r"(is|are|does|do|can)n'?t)\b", re.I)
_CLAUSE_END = re.compile(r"[,;:.]")


def turns_away(question: str, faq_question: str, sentences: tuple[Chunk, ...]) -> bool:
    """True if an FAQ's authored Yes is said with a denial or contrast of something the
    visitor asks that the FAQ's question does not: that Yes answers the FAQ's question, not
    this one. Either the visitor's own word is what is denied ("Does PUE include the GPUs'
    own power?" is answered "Yes, ... not how efficiently the GPUs compute": No to "does pue
    tell me how efficient my gpus are?"), or it is what the denial is said of ("Does Google
    Cloud support RDMA?": "Yes, ... Earlier A3 and A3 Mega H100 VMs use ... instead of
    RDMA": No to "is google cloud a3 mega rdma?"). An authored No stays: a denial beside it
    agrees with it."""
    if not sentences or not re.match(r"\W*yes\b", sentences[0].text, re.I):
        return False
    asked = content_stems(faq_question)
    own = content_stems(question) - stems_of(faq_question)
    if not own:
        return False
    # A hedged Yes ("Yes, but only through the switch side: ... An 800 Gb/s module plugged
    # into a 400 Gb/s NIC port does not work") denies the cases it names: a denial said of
    # the visitor's own words turns it ("can i plug an 800g module into a 400g nic port?")
    hedged = bool(HEDGED.match(sentences[0].text))
    for sentence in sentences:
        text = sentence.text
        for match in _CONTRAST.finditer(text):
            start = max((m.end() for m in _CLAUSE_END.finditer(text, 0, match.start())),
                        default=0)
            end = _CLAUSE_END.search(text, match.end())
            before = stems_of(text[start:match.start()])
            denied = stems_of(text[match.end():end.start() if end else len(text)])
            if own & denied or (own & before and (hedged or asked & denied)):
                return True
    return False


def asks_of_other_terms(draft: Draft, faq_slug: str, faq_question: str) -> bool:
    """True if the message names terms and an FAQ neither belongs to nor names any of them:
    its authored Yes or No is said of something else ("is nvls the same thing?", asked of
    NVLink SHARP, is not "Is NVLink Switch the same as NVSwitch?")."""
    return bool(draft.terms) and faq_slug not in draft.terms and not any(
        names_page(faq_question, draft.corpus.get(slug)) for slug in draft.terms)


#: A name in an FAQ question after its first word ("Fusion" of "NVLink Fusion", "Falcon"):
#: a question that does not say it asks of something else.
_NAMES = re.compile(r"(?<=\s)[A-Z][a-z]{2,}\b")


def led_by_faq(draft: Draft, sentence: Chunk) -> bool:
    """True if the sentence the ranker leads with opens an FAQ answer with its authored Yes or
    No, and that FAQ asks this question: the same way round, judging alike, with the same
    qualifiers, of the same subjects ("we're on ndr infiniband, do we need to set up pfc?"
    led by "No, InfiniBand does not use PFC ..." of "Do I need PFC on InfiniBand?")."""
    if not YES_NO_OPENING.match(sentence.text) or HEDGED.match(sentence.text):
        return False  # "Yes, slightly" says less of a question asked another way
    retriever = draft.retriever
    first = retriever.sentences_of_chunk(sentence.chunk_id)
    question = retriever.faq_question_of(sentence.chunk_id)
    if question is None or not first or first[0].id != sentence.id:
        return False
    q = draft.question
    if not (turned_alike(q, question) and judged_words(q) == judged_words(question)
            and same_qualifiers(q, question) and same_qualifiers(question, q)
            and asks_identity(q) == asks_identity(question)):
        return False
    # ...of the same thing: "Does NVLink Fusion make NVLink an open standard?" leads an
    # answer to "can third party cpus hook into nvlink?", but its No is of "open standard"
    if any(name.lower() not in q.lower() for name in _NAMES.findall(question)):
        return False
    asked = {m.slug for m in retriever.terms.find(question)}
    said = asked | {m.slug for m in retriever.terms.find(sentence.text)} | {sentence.slug}
    # ...and it asks of no term the visitor does not ("Is UALink the same as Ultra Ethernet?"
    # does not answer "can ualink scale to ~1000 accelerators?")
    return set(draft.terms) <= said and not asked - set(draft.terms) - {sentence.slug} \
        and not turns_away(q, question, tuple(first)) \
        and not asks_of_other_terms(draft, sentence.slug, question)


#: How sure the sentence ranker must be of a sentence a rule reads a denial from.
DENY_SETTLE_AT = 0.4


def reading(draft: Draft, pool: list[Candidate], ranked: list[tuple[Chunk, float]]
             ) -> Verdict | None:
    """The rules' reading (verdict.settle), else a denial the ranker leads with, else the
    word of a labelled question asked the same way. A denial the rules read off a sentence
    the ranker doubts answers the question does not stand ("a GPU in one HGX server cannot
    reach a GPU in another HGX server" for "can one gpu load from another gpu's memory over
    nvlink?", 0.36)."""
    settled = settle(draft, pool)
    if settled is not None and settled.how == "deny" and ranked and dict(
            (s.id, p) for s, p in ranked).get(settled.sentence.id, 1.0) < DENY_SETTLE_AT:
        settled = None
    own = YES_NO_OPENING.match(settled.sentence.text) if settled is not None else None
    if own and settled.word:
        # a reading of another FAQ's answer keeps that answer's own word, or none if the
        # reading says the other
        settled = settled._replace(word="") if own.group(0).lower() == settled.word.lower() \
            else None
    settled = settled or learned_denial(draft, ranked) or remembered(draft, ranked)
    if settled is None and ranked and (led_by_faq(draft, ranked[0][0]) or (
            draft.learning is not None and not draft.conversation
            and draft.learning.lends_lead(draft, ranked[0][0]))):
        return Verdict("", ranked[0][0], "faq-led")
    return settled


def learned_denial(draft: Draft, ranked: list[tuple[Chunk, float]]) -> Verdict | None:
    """No, from the learned order's first sentence, or its second when the ranker is as
    sure of it ("An MFU above 100% means the calculation is wrong", then "a correctly
    computed MFU cannot exceed 100%"), when it denies what is asked (verdict.lead_denies);
    another FAQ's "No, ..." keeps its own word."""
    denial = next((s for s, p in ranked[:2] if p >= DENY_AT and lead_denies(draft, s)), None)
    if denial is None:
        return None
    return Verdict("" if YES_NO_OPENING.match(denial.text) else "No", denial, "denies")


def remembered(draft: Draft, ranked: list[tuple[Chunk, float]]) -> Verdict | None:
    """The Yes or No of a labelled question asked the same way (learned.polar_memory), said
    with the first sentence in the learned order that held that question's key facts (one
    that opens with the other word, or "It depends", answers another framing: none)."""
    if draft.learning is None or draft.conversation or not ranked:
        return None
    remembered = draft.learning.polar_memory(draft)
    if remembered is None:
        return None
    word, answered = remembered
    sentence = next((s for s, _ in ranked if s.id in answered), None)
    if sentence is None:
        return None
    own = POLAR_OPENING.match(sentence.text)
    if own and not own.group(0).lower().startswith(("it", word)):
        return None
    # An authored "It depends" answers the general question; the labelled neighbour asked
    # the case it settles ("can i link two hgx boxes with nvlink?" against "Can NVLink
    # connect two servers?"), so its word replaces the hedge.
    same = own and own.group(0).lower().startswith(word)
    return Verdict("" if same else word.capitalize(), sentence, "remembered")
