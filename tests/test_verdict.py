"""verdict.turns_away: an authored Yes that denies what the visitor adds is not borrowed."""

import pytest

from assistant.corpus import Chunk
from assistant.verdict import turns_away


def _answer(*texts: str) -> tuple[Chunk, ...]:
    return tuple(Chunk(id=f"p::faq{i}::s{i}", slug="p", title="p", kind="glossary", url="/p",
                       section="FAQ", text=t, unit="sentence") for i, t in enumerate(texts))


PUE = _answer("Yes, GPU power is part of the IT equipment power, which forms the denominator "
              "of PUE.", "PUE measures only the overhead of cooling, power conversion and "
              "other facility loads on top of the IT load, not how efficiently the GPUs "
              "compute, because PUE divides total facility power by IT power.")
CLOUD = _answer("Yes, Google Cloud's A3 Ultra VMs run RDMA over Converged Ethernet.",
                "Earlier A3 and A3 Mega H100 VMs use the TCP-based GPUDirect-TCPX and "
                "GPUDirect-TCPXO instead of RDMA.")


@pytest.mark.parametrize(("question", "faq", "answer"), [
    # the visitor's own word is what the answer denies
    ("does pue tell me how efficient my gpus are?", "Does PUE include the GPUs' own power?",
     PUE),
    # the visitor's own word is what a denial is said of, and it denies the FAQ's subject
    ("is google cloud a3 mega rdma?", "Does Google Cloud support RDMA for GPUs?", CLOUD),
])
def test_an_authored_yes_that_denies_what_the_visitor_adds_is_not_theirs(question, faq,
                                                                          answer):
    assert turns_away(question, faq, answer)


@pytest.mark.parametrize(("question", "faq", "answer"), [
    # the FAQ's own question, or a rewording with nothing denied of its own words
    ("does pue count the gpus' power?", "Does PUE include the GPUs' own power?", PUE),
    ("does google cloud have rdma for gpus?", "Does Google Cloud support RDMA for GPUs?",
     CLOUD),
    # an authored No: a denial beside it agrees with it
    ("does nccl run on amd mi300x gpus?", "Does NCCL run on AMD GPUs?",
     _answer("No, NCCL runs only on NVIDIA GPUs.", "AMD GPUs do not run NCCL itself but "
             "RCCL, which keeps the NCCL API.")),
    # a contrast that says nothing of the visitor's own words
    ("does an nvl72 rack actually help mixture of experts models?",
     "Does NVL72 help expert parallelism?",
     _answer("Yes, an NVL72 rack lets an expert-parallel group of up to 72 GPUs run its "
             "all-to-all exchanges over NVLink 5 instead of over network ports.")),
])
def test_an_answer_that_denies_nothing_the_visitor_adds_keeps_its_word(question, faq,
                                                                       answer):
    assert not turns_away(question, faq, answer)
