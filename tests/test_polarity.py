"""Which way a corpus sentence settles a yes/no question (no model needed)."""

from assistant.polarity import reading


def words_share(*words):
    """A `covered` callable: the share of the given question words a text names."""
    def covered(text):
        lowered = text.lower()
        return sum(w in lowered for w in words) / len(words)
    return covered


def test_a_plain_statement_of_the_claim_is_yes():
    covered = words_share("run", "standby", "subnet manager")
    assert reading("Production fabrics run one or more standby subnet managers.", covered) == "Yes"


def test_a_negation_about_something_else_does_not_block_yes():
    covered = words_share("run", "standby", "subnet manager")
    sentence = ("Production fabrics run one or more standby subnet managers, because a fabric "
                "without a working master cannot recover from link failures.")
    assert reading(sentence, covered) == "Yes"


def test_a_negation_about_the_claim_is_never_yes():
    covered = words_share("iwarp", "rdma", "roce", "adapter")
    sentence = ("An iWARP adapter speaks TCP-based protocols on the wire and cannot exchange "
                "RDMA traffic with a RoCE adapter.")
    assert reading(sentence, covered) != "Yes"


def test_a_hedged_clause_settles_nothing():
    covered = words_share("roce", "lossless")
    assert reading("RoCE usually runs on a lossless fabric.", covered) is None


def test_a_named_mistake_is_no():
    covered = words_share("sharp", "any", "infiniband")
    assert reading("A common mistake is assuming that SHARP is active on any InfiniBand fabric.",
                   covered) == "No"


def test_a_borrowed_opening_goes_with_its_qualifier():
    from assistant.polarity import without_opening
    assert without_opening("Yes, partly: a scheduler keeps each job under one leaf.") == \
        "A scheduler keeps each job under one leaf."
    assert without_opening("No, PFC is flow control.") == "PFC is flow control."
    assert without_opening("Partly cloudy skies are rare.") == "Partly cloudy skies are rare."


def test_no_as_a_determiner_denies():
    covered = words_share("roce", "subnet manager")
    sentence = ("Ethernet fabrics have no subnet manager, and RoCE v2 relies on Ethernet switching "
                "and IP routing rather than on a subnet manager.")
    assert reading(sentence, covered) == "No"
