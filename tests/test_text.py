"""Sentences that can be quoted alone, and the shared text helpers."""

import pytest

from assistant.text import dangling_reason, split_sentences, stands_alone, strip_markers


@pytest.mark.parametrize("sentence", [
    "The job now costs 33,280 × $7 = $232,960.",
    "Another mistake is to compare Gb/s with GB/s.",
    "End-to-end latency is the sum of several parts:",
    "Is a single-vendor fabric acceptable for the life of the cluster?",
    "Cluster B also returns the trained model 30 hours sooner.",
    "It runs over UDP.",
    "The same switch with 48 server ports and 16 uplinks is 3:1.",
    "In that case each step takes 1.3 seconds.",
    "The following prices are illustrative, not market quotes.",
])
def test_sentences_that_lean_on_their_neighbours_are_caught(sentence):
    assert dangling_reason(sentence) is not None
    assert not stands_alone(sentence)


@pytest.mark.parametrize("sentence", [
    "RoCE v2 uses UDP destination port 4791.",
    "Yes, NCCL runs over RoCE v2 through its verbs transport.",
    "It depends: NVLink joins servers only inside an NVL72 rack.",
    "No, InfiniBand does not use PFC, because credit-based flow control keeps links lossless.",
    "Both InfiniBand and RoCE carry RDMA traffic.",
    "In the backward pass, each stage sends activation gradients back to the previous stage.",
    "Scaling efficiency compares a job on N GPUs with the same job on one GPU.",
    "Next-generation switches double the radix.",
])
def test_standalone_sentences_pass(sentence):
    assert dangling_reason(sentence) is None, dangling_reason(sentence)


def test_split_and_strip():
    text = "NDR runs at 400 Gb/s. [1] XDR doubles it to 800 Gb/s. [2]\n\n- A list item counts."
    assert split_sentences(strip_markers(text)) == [
        "NDR runs at 400 Gb/s.", "XDR doubles it to 800 Gb/s.", "A list item counts."]


def test_an_ordinal_example_leans_on_the_first():
    assert dangling_reason("A second common mistake is assuming PFC is free.")
    assert dangling_reason("A common mistake is assuming PFC is free.") is None
