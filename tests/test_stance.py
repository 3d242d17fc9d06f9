"""stance.py and verdict.stood: the learned Yes or No of the sentence an answer leads with."""

import copy
from dataclasses import replace

import pytest

from assistant.learned import Learned, NoLearning
from assistant.stance import STANCE_FEATURES, stance_features


def test_the_features_are_named_and_see_negations_on_each_side():
    plain = stance_features("does infiniband need pfc?", "InfiniBand does not use PFC.", 0.6)
    agreed = stance_features("does infiniband need pfc?", "InfiniBand uses PFC.", 0.6)
    assert len(plain) == len(agreed) == len(STANCE_FEATURES)
    at = STANCE_FEATURES.index("negations_disagree")
    assert (plain[at], agreed[at]) == (1.0, 0.0)
    denied = STANCE_FEATURES.index("question_words_denied")
    assert plain[denied] >= 1.0 and agreed[denied] == 0.0
    assert plain[STANCE_FEATURES.index("similarity")] == 0.6


def test_without_trees_there_is_no_stance():
    assert NoLearning().stance(None, None) is None
    assert Learned().stance(None, None) is None


class _SaysYes:
    """A learning that would lend Yes to anything: only verdict.stood's gates stop it."""

    def stance(self, draft, sentence):
        return "yes"


def _draft(bot, question):
    turn = bot.turn(question, [], None)
    return bot.draft(turn.question, turn.retrieval)


def _sentence(bot, slug, start):
    return next(s for s in bot.retriever.sentences_of_page(slug) if s.text.startswith(start))


@pytest.mark.model
def test_stood_lends_the_word_only_to_a_plain_first_message_led_by_a_plain_sentence(bot):
    from assistant.verdict import stood

    lead = _sentence(bot, "iwarp", "iWARP is a set of IETF protocols")
    draft = replace(_draft(bot, "can iwarp rdma go through routers?"), learning=_SaysYes())
    assert stood(draft, [(lead, 0.9)]).word == "Yes"
    # a follow-up, a turned question, a sentence naming a mistake or with its own word: none
    assert stood(replace(draft, conversation=True), [(lead, 0.9)]) is None
    turned = replace(_draft(bot, "can iwarp rdma work without pfc?"), learning=_SaysYes())
    assert stood(turned, [(lead, 0.9)]) is None
    mistake = _sentence(bot, "priority-flow-control", "A common mistake")
    assert stood(draft, [(mistake, 0.9)]) is None
    own = next(s for i in range(8) for s in bot.retriever.sentences_of_chunk(f"iwarp::faq::{i}")
               if s.text.startswith(("Yes", "No", "It depends")))
    assert stood(draft, [(own, 0.9)]) is None


@pytest.mark.model
def test_the_stance_trees_lend_a_word_a_labelled_neighbour_agrees_with(bot):
    question = "can iwarp rdma go through routers / over a wan link?"
    assert bot.ask(question).text.startswith("Yes: iWARP is a set of IETF protocols")
    draft = _draft(bot, question)
    lead = _sentence(bot, "iwarp", "iWARP is a set of IETF protocols")
    assert bot.learning.stance(draft, lead) == "yes"
    bare = copy.copy(bot.learning)
    bare.stance_trees = None
    assert bare.stance(draft, lead) is None
