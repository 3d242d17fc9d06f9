"""Question intents: the wording decides how the answer leads (no model needed)."""

import pytest

from assistant.intent import Intent, asked_units, classify, has_unit


@pytest.mark.parametrize("question, intent", [
    ("what is rdma", Intent.DEFINITION),
    ("whats nvlnk", Intent.DEFINITION),
    ("rdma explained simply pls", Intent.DEFINITION),
    ("nvlink", Intent.DEFINITION),
    ("can you explain what nvlink is", Intent.DEFINITION),  # a polite wrapper
    ("could you tell me what a dpu is", Intent.DEFINITION),
    ("can you tell me how much 8 h100s cost", Intent.COST),
    ("does ib need pfc?", Intent.YES_NO),
    ("can i run rocev2 without a lossless fabric", Intent.YES_NO),
    ("Should every GPU server have a DPU?", Intent.YES_NO),
    ("sharp works on ethernet too, right?", Intent.YES_NO),
    ("how fast is an xdr port", Intent.QUANTITY),
    ("how many gpus share one nvlink domain in a gb300 rack", Intent.QUANTITY),
    ("what port number is rocev2", Intent.QUANTITY),
    ("why is nvlink faster than the network", Intent.CAUSE),
    ("how come all-reduce stalls when one link drops packets", Intent.CAUSE),
    ("how does adaptive routing work", Intent.MECHANISM),
    ("roce v1 vs v2", Intent.COMPARISON),
    ("what's the difference between ecn and pfc", Intent.COMPARISON),
    ("which fabric should we buy for 1,000 gpus", Intent.CHOICE),
    ("how do i set up dcqcn on connectx cards", Intent.PROCEDURE),
    ("how do i know if my cluster is oversubscribed", Intent.PROCEDURE),
    ("how much does an infiniband fabric cost", Intent.COST),
    ("how does the network change what a training run costs", Intent.COST),
    ("whats the catch", Intent.DRAWBACK),
    ("what are the downsides of roce", Intent.DRAWBACK),
    ("is there a catch", Intent.YES_NO),
])
def test_intent_of_visitor_wording(question, intent):
    assert classify(question).intent is intent


def test_two_terms_compared_make_a_comparison_unless_asked_yes_or_no():
    assert classify("infiniband and roce", comparing=True).intent is Intent.COMPARISON
    assert classify("is roce as fast as infiniband", comparing=True).intent is Intent.YES_NO


def test_units_asked_and_units_stated():
    assert asked_units("what bandwidth does a cx7 have") == ("bandwidth",)
    assert "latency" in asked_units("typical latency of an ib switch hop?")
    assert has_unit("NDR InfiniBand runs at 400 Gb/s per port.", ("bandwidth",))
    assert has_unit("RDMA delivers latency of one to a few microseconds.", ("latency",))
    assert not has_unit("InfiniBand is a lossless network.", ("bandwidth", "latency"))
    assert has_unit("RoCE v2 uses UDP destination port 4791.", ("port",))


def test_a_count_of_a_unit_asks_for_that_unit():
    assert asked_units("how many watts does an 800g optical module use") == ("power",)
    assert asked_units("how many gbps is edr infiniband") == ("bandwidth",)
    assert "count" in asked_units("how many switches for 1024 gpus at 400 gb/s")


def test_how_often_asks_for_a_frequency():
    shape = classify("how often can a nic send a cnp in dcqcn")
    assert shape.intent is Intent.QUANTITY and shape.units == ("frequency",)
    assert has_unit("It sends at most one CNP per flow per 50 microseconds.", ("frequency",))
    assert not has_unit("The sender lowers its rate when a CNP arrives.", ("frequency",))


def test_what_is_with_a_given_figure_asks_for_a_value():
    assert classify("whats the ring allreduce traffic factor for 8 gpus").intent is Intent.QUANTITY
    assert classify("how much pfc headroom for a 400g port").units == ("size",)
    assert classify("what is a 400g port").intent is Intent.DEFINITION
    assert classify("what is the cost for 256 gpus").intent is not Intent.QUANTITY


def test_classify_never_raises_on_odd_input():
    for text in ["", "   ", "???", "a" * 5000, "\u202e\u0000 is it", "¿Qué es RDMA?"]:
        assert isinstance(classify(text).intent, Intent)


@pytest.mark.parametrize("question, expected", [
    ("doesnt plain ethernet drop frames?", True),  # typed without the apostrophe
    ("we use roce. doesn't that need pfc?", True),  # the question after its context
    ("isnt kernel bypass a hole? is memory still protected", False),  # the last one asked
    ("want to know if roce needs pfc", False),  # "want" is no negated auxiliary
    ("isn't roce lossy?", True),
    ("is a passive dac basically zero power?", True),  # a claim of nothing
    ("does zero-3 use more network than plain dp", False),  # ZeRO stage 3 is no negation
    # a remark after the question asks nothing
    ("roce uses the same verbs api as ib, right? dont want to rewrite our code", False),
    ("doesnt roce need pfc? we have it on", True),
    # a claim of none, asked with a tag ("..., right?" asks of the clause before it)
    ("passive dac cables basically draw no power, right?", True),
    ("does ib need pfc, yes or no?", False),
    ("does a dac use power, right?", False),
])
def test_a_question_asked_the_other_way_round(question, expected):
    from assistant.intent import negated

    assert negated(question) is expected


from assistant.intent import plainly  # noqa: E402


@pytest.mark.parametrize("asked, plain", [
    ("explain ecn like im 5", "explain ecn"), ("eli5: what is rdma", "what is rdma"),
    ("what is pfc in plain english?", "what is pfc?"),
    ("what is ecn, like I am five", "what is ecn"),
    ("like im 5", "like im 5"),  # nothing else left: the message as typed
    ("is nvlink like infiniband?", "is nvlink like infiniband?")])
def test_a_request_to_keep_it_simple_is_no_part_of_the_question(asked, plain):
    assert plainly(asked) == plain
