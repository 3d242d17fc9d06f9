"""faq: which FAQ's authored Yes or No answers a visitor's question."""

import pytest

from assistant.faq import _other_version, asked_like_another, denied_of_every, said_of_the_usual


def test_an_answer_said_of_the_usual_case_does_not_settle_an_always():
    usual = "Yes, liquid cooling usually lowers PUE, because moving heat away in water needs less."
    assert said_of_the_usual("so pulling the server fans out always makes pue look better?",
                             usual)
    assert not said_of_the_usual("does liquid cooling lower pue?", usual)
    assert not said_of_the_usual("does it always lower pue?", "No, PFC pauses the link.")


LONG_HAUL = "Is PFC practical over a long-haul link of hundreds of kilometers?"


@pytest.mark.parametrize(("asked", "other"), [
    # a held-out dev question that took this FAQ's No; the page says 100 km can work
    ("we're looking at pfc across a ~100km regional link - is that even possible?", True),
    ("does pfc work over 2 km between halls?", True),
    ("can we just stretch pfc over a 500 km dci link between our two sites?", False),
    ("can i just extend pfc over a 1000km link?", False),
    ("can we stretch pfc between two sites?", False),  # no distance: the FAQ may answer
])
def test_a_distance_the_faq_does_not_span_is_another_question(asked, other):
    assert _other_version(frozenset(), LONG_HAUL, asked) is other


def test_a_distance_the_faq_does_not_name_is_context():
    assert not _other_version(frozenset(), "Does fiber length add latency?",
                              "does fiber length really add latency? our halls are 100m apart")
    assert not _other_version(frozenset(), "Is a 100 m fiber run too long for 400G?",
                              "is a 100m run too long for 400g optics?")


@pytest.mark.parametrize(("asked", "faq", "other"), [
    # found as a visitor: "can a cx7 do 800g" opened with the No of ConnectX-8's FAQ
    ("can a cx7 do 800g", "Does ConnectX-8 support a single 800G Ethernet port?", True),
    ("will a gen4 slot hold back a 400g nic", "Is PCIe Gen5 needed for a 400G NIC?", True),
    ("does connectx-7 need pcie gen5", "Does ConnectX-7 need PCIe Gen5?", False),
    ("is nvlink 5 faster than nvlink 4", "Is NVLink 5 faster than NVLink 4?", False),
    ("does a connectx card need pfc", "Does ConnectX-8 need PFC?", False),  # no generation
])
def test_another_generation_of_the_same_product_is_another_question(asked, faq, other):
    assert _other_version(frozenset(), faq, asked) is other


def test_a_no_said_of_every_one_is_no_word_for_one_of_them():
    faq = "Does NCCL work the same way on every cloud?"
    no = "No, NCCL needs a different network path on each cloud."
    assert denied_of_every("does nccl need a plugin on google cloud?", faq, no)
    assert not denied_of_every("is nccl the same on all clouds?", faq, no)  # asked of all
    assert not denied_of_every("does nccl work on google cloud?", faq, "Yes, it does.")
    # "each other", "all-reduce" and "at all" say of no every
    assert not denied_of_every("can gpus in two hgx servers use nvlink?",
                               "Can GPUs in two servers talk to each other over NVLink?", no)
    assert not denied_of_every("does it help?", "Does SHARP speed up all-reduce?", no)
    assert not denied_of_every("does it help?", "Does SHARP help at all?", no)


def test_a_yes_said_of_what_the_visitor_compares_with_is_no_word():
    # held-out dev: asked of Azure ("there"), it opened with the Yes of NCCL on AWS's EFA
    assert asked_like_another("does nccl need a special plugin there like on aws?",
                              "Does NCCL work on EFA?",
                              "Yes, NCCL works on EFA through the aws-ofi-nccl plugin.")
    # an example, and a contrast the answer also draws, are not what is compared with
    assert not asked_like_another("is pp used for inference too, like in vllm?",
                                  "Is pipeline parallelism used for inference?",
                                  "Yes, vLLM can split a model into pipeline stages.")
    assert not asked_like_another("ualink is an open standard, unlike nvlink?",
                                  "Is UALink an open standard?",
                                  "Yes, UALink is an open standard, unlike NVLink.")


def _faq_chunk(i: int, text: str, unit: str = "question"):
    from assistant.corpus import Chunk

    return Chunk(id=f"all-reduce::faq::{i}::{unit}", slug="all-reduce", title="All-reduce",
                 section="FAQ", text=text, url="/glossary/all-reduce", kind="glossary",
                 unit=unit, chunk_id=f"all-reduce::faq::{i}", position=0)


@pytest.mark.parametrize(("scores", "matched"), [
    ((0.90, 0.86), None),          # a rival answered No nearly as likely: no word
    ((0.90, 0.70), "overlap"),     # the rival is far behind
])
def test_a_rival_faq_answered_with_the_other_word_leaves_the_question(monkeypatch, scores,
                                                                      matched):
    from types import SimpleNamespace

    from assistant import faq

    pairs = [(_faq_chunk(3, "Can all-reduce overlap with computation?"), 0.8,
              (_faq_chunk(3, "Yes, frameworks overlap it with the backward pass.", "sentence"),),
              [0.0]),
             (_faq_chunk(4, "Does all-reduce average the gradients?"), 0.8,
              (_faq_chunk(4, "No, all-reduce itself usually sums the buffers.", "sentence"),),
              [1.0])]
    monkeypatch.setattr(faq, "polar_pairs", lambda draft: pairs)
    monkeypatch.setattr(faq, "_asked_alike", lambda draft, model, pair: True)
    monkeypatch.setattr(faq, "_same_subjects", lambda draft, question, sentence: True)
    model = SimpleNamespace(pairs=SimpleNamespace(proba=lambda rows: [scores[int(r[0])]
                                                                      for r in rows]))
    draft = SimpleNamespace(question="can the gradient allreduce overlap with the backward pass",
                            conversation=False)
    found = faq.learned_neighbour(draft, model)
    assert (found is None) == (matched is None)
    assert matched is None or matched in found.question


@pytest.mark.parametrize(("conversation", "matched"), [(False, True), (True, False)])
def test_in_a_conversation_the_faq_must_be_asked_of_the_messages_terms(monkeypatch,
                                                                       conversation, matched):
    """A follow-up is searched with the message before it, whose own FAQ may come first very
    likely: in a conversation, even a very likely FAQ must be asked of this message's terms."""
    from types import SimpleNamespace

    from assistant import faq

    pairs = [(_faq_chunk(2, "Does InfiniBand have congestion control?"), 0.84,
              (_faq_chunk(2, "Yes, InfiniBand has congestion control.", "sentence"),), [0.0])]
    monkeypatch.setattr(faq, "polar_pairs", lambda draft: pairs)
    monkeypatch.setattr(faq, "_asked_alike", lambda draft, model, pair: True)
    monkeypatch.setattr(faq, "_same_subjects", lambda draft, question, sentence: False)
    model = SimpleNamespace(pairs=SimpleNamespace(proba=lambda rows: [0.95 for _ in rows]))
    draft = SimpleNamespace(question="ok and does the normal tcp congestion control also "
                                     "handle the rdma flows?", conversation=conversation)
    assert (faq.learned_neighbour(draft, model) is not None) == matched
