"""Scope (scope.py): what is declined besides what names no term and comes nowhere near the
corpus: first messages closer to a labelled out-of-scope question than to the corpus."""

from __future__ import annotations

import pytest

from assistant.chain import Question
from assistant.learned import NoLearning
from assistant.scope import declined_before, in_scope


@pytest.mark.parametrize("question", [
    # paraphrases of labelled out-of-scope questions, none of them labelled itself
    "would an rtx 4090 be a decent card for gaming at 4k?",
    "which wifi 7 router should i get for my flat?",
    # names InfiniBand, and is still about a product the corpus never covers
    "how does hpe slingshot handle congestion compared to infiniband?",
])
def test_a_message_like_a_labelled_out_of_scope_question_is_declined(bot, question):
    answer = bot.ask(question)
    assert answer.refused and answer.kind == "refusal"


@pytest.mark.parametrize("question", [
    "is infiniband worth it for a 64 gpu cluster?",
    "how much does a 400g infiniband fabric cost per gpu?",
    "can roce run without pfc?",
])
def test_questions_about_the_corpus_are_not_taken_for_them(bot, question):
    assert not bot.ask(question).refused


def test_only_first_messages_and_only_with_the_learned_parts(bot):
    history = [{"role": "user", "content": "what is hpe slingshot?"},
               {"role": "assistant", "content": "That is outside what I cover."}]
    turn = bot.turn("how does hpe slingshot handle congestion compared to infiniband?")
    q, retrieval = turn.question, turn.retrieval
    assert declined_before(bot, q, retrieval) and not in_scope(bot, q, retrieval)
    follow = Question(text=q.text, history=bot.turn("x", history).question.history,
                      page=None, terms=q.terms, subject=q.subject, compare=q.compare)
    assert in_scope(bot, follow, retrieval)  # a follow-up is judged by its terms
    assert NoLearning().declined_before(retrieval.vector, 0.0) is False


UE = [{"role": "user", "content": "what is ultra ethernet?"},
      {"role": "assistant", "content": "Ultra Ethernet is the UEC's open specification."}]


@pytest.mark.parametrize("question", [
    "cool, write me a poem about that", "nice, translate that into french",
    "write a haiku about infiniband"])
def test_a_writing_task_is_declined_whatever_it_is_about(bot, question):
    answer = bot.ask(question, UE)
    assert answer.refused and answer.kind == "refusal"


def test_a_follow_up_that_points_back_and_stays_near_the_corpus_is_answered(bot):
    history = [{"role": "user", "content": "whats the bubble with 8 stages and only 8 "
                                           "microbatches?"},
               {"role": "assistant", "content": "About 7/15, so roughly 47% of each step."}]
    answer = bot.ask("ouch. how do i shrink that?", history)
    assert not answer.refused and "pipeline-parallelism" in answer.retrieved[:3]
    # ...and "translate into" that names no language is no translation
    assert not bot.ask("ok how does that translate into cost, say we're at 80%?",
                       UE).refused
