"""faq: which FAQ's authored Yes or No answers a visitor's question."""

from assistant.faq import said_of_the_usual


def test_an_answer_said_of_the_usual_case_does_not_settle_an_always():
    usual = "Yes, liquid cooling usually lowers PUE, because moving heat away in water needs less."
    assert said_of_the_usual("so pulling the server fans out always makes pue look better?",
                             usual)
    assert not said_of_the_usual("does liquid cooling lower pue?", usual)
    assert not said_of_the_usual("does it always lower pue?", "No, PFC pauses the link.")
