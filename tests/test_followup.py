"""Follow-ups read against the conversation: "and for 800g?" asks the previous question again."""

import pytest

from assistant.followup import FollowUps
from assistant.inputs import Message


@pytest.fixture(scope="module")
def follow(fake_bot):
    return FollowUps(fake_bot.corpus, fake_bot.retriever.terms)


@pytest.mark.parametrize("previous, follow_up, again", [
    ("how much is a 400g optic?", "and for 800g?", "how much is a 800g optic?"),
    ("is nvlink faster on h100?", "what about b200?", "is nvlink faster on b200?"),
    # a word with two qualifiers ("p5" and "48xlarge"): any of them may be the one of the
    # kind asked, whichever a set lists first in this process
    ("how much efa bandwidth does a p5.48xlarge get?", "and on the b300 instances?",
     "how much efa bandwidth does a b300 instances get?"),
])
def test_a_follow_up_that_changes_one_attribute_asks_the_previous_question_of_it(
        follow, previous, follow_up, again):
    history = [Message(role="user", content=previous),
               Message(role="assistant", content="An answer.")]
    assert follow.ask_again(follow_up, history) == again


def test_a_question_of_its_own_is_not_rewritten(follow):
    history = [Message(role="user", content="how much is a 400g optic?")]
    assert follow.ask_again("what is nvlink?", history) is None
