"""Sentences that can be quoted alone, and the shared text helpers."""

import pytest

from assistant.text import (
    complete_prefix,
    dangling_reason,
    markers_in,
    numbers_in,
    split_answer_sentences,
    split_sentences,
    stands_alone,
    strip_markers,
    table_sentences,
    term_key,
)


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


def test_numbers_ignore_markers_and_list_numbers():
    # "v2" is a name, not a figure; [3] is a citation; "1." a list number.
    assert numbers_in("1. RoCE v2 uses port 4791 [3]. It costs $179,200 [12].") == [
        4791.0, 179200.0]
    assert numbers_in("It costs $179,200 (25,600 GPU-hours), or $0.56 per million.") == [
        179200.0, 25600.0, 0.56]


def test_markers_in_order_with_repeats():
    assert markers_in("A [2]. B [1][2]. C.") == [2, 1, 2]
    assert strip_markers("A [2]. B [1][2].") == "A. B."


def test_answer_sentences_keep_their_markers():
    assert split_answer_sentences("A is B [1]. C is D. [2]\n- E is F [3]") == [
        "A is B [1].", "C is D. [2]", "- E is F [3]"]


def test_complete_prefix_waits_for_the_end_of_a_sentence():
    assert complete_prefix("RoCE runs on UDP [1]. RoCE v2 is rout") == len("RoCE runs on UDP [1].")
    assert complete_prefix("RoCE runs on UDP [1") == 0


def test_term_key_keeps_letters_and_digits_only():
    assert term_key("RoCE-v2 (RDMA)") == "roce v2 rdma"
    assert term_key("  GB200_NVL72 ") == "gb200 nvl72"


def test_table_rows_become_sentences_that_name_their_columns():
    table = ("Speeds by generation:\n\n| Generation | Per-lane rate | 4x port |\n|---|---|---|\n"
             "| EDR | 25 Gb/s | 100 Gb/s |\n| NDR | 100 Gb/s | — |\n\nAfter the table.")
    assert table_sentences(table, "InfiniBand generations") == [
        "EDR (InfiniBand generations): per-lane rate 25 Gb/s; 4x port 100 Gb/s.",
        "NDR (InfiniBand generations): per-lane rate 100 Gb/s."]
    # A row that names the page's subject needs no reminder of it; no table, no sentences.
    assert table_sentences("| Generation | Total |\n|---|---|\n| NVLink 5 | 1.8 TB/s |",
                           "NVLink") == ["NVLink 5: total 1.8 TB/s."]
    assert table_sentences("No table here.", "NVLink") == []
    # two tables with nothing between them (as a chunk may hold them): the second header is
    # a header, not a row of the first table
    two = ("| Link | Each direction |\n|---|---|\n| NDR | 50 GB/s |\n"
           "| System | Ratio |\n|---|---|\n| H100 | 9 times |")
    assert table_sentences(two, "NVLink vs InfiniBand") == [
        "NDR (NVLink vs InfiniBand): each direction 50 GB/s.",
        "H100 (NVLink vs InfiniBand): ratio 9 times."]
    # a column named by a product keeps its capitals
    assert table_sentences("| Aspect | InfiniBand | RoCE v2 |\n|---|---|---|\n"
                           "| Skills | Specialist | Widespread |", "InfiniBand vs RoCE") == [
        "Skills (InfiniBand vs RoCE): InfiniBand Specialist; RoCE v2 Widespread."]
    for sentence in table_sentences(table, "InfiniBand generations"):
        assert stands_alone(sentence)


@pytest.mark.parametrize("sentence", [
    "The usual PCIe x16 bandwidth figures per generation are listed below.",
    "The ports of each switch are as follows.",
    "The table below gives the rates.",
])
def test_a_sentence_pointing_at_a_table_or_list_does_not_stand_alone(sentence):
    assert not stands_alone(sentence)


def test_a_sentence_ending_in_instead_leans_on_the_one_before():
    assert not stands_alone("GPUs inside one server communicate over NVLink and PCIe instead.")
    assert not stands_alone("The NIC classifies traffic by DSCP as well.")
    assert stands_alone("GPUs inside one server communicate over NVLink instead of InfiniBand.")


@pytest.mark.parametrize("sentence", [
    "The network does not appear as a separate line in that formula, but it decides the hours.",
    "On a well-built fabric, the 256-GPU training job in this example finishes in 100 hours.",
    "Effective compute is the useful work a cluster delivers after such losses.",
    "Monitoring link errors finds such cables before they cost many GPU-hours.",
    "A drop rate that TCP barely notices can therefore cut RDMA throughput sharply.",
    "An Ethernet fabric for RDMA is therefore built to avoid drops in the RDMA class.",
    "Packets of one flow then travel different paths and can arrive out of order.",
    "UALink compares with NVLink in a few concrete ways.",
    "Three factors set the PFC headroom of a port.",
    "ECN and DCQCN need longer than that to react.",
    "The NIC writes incoming chunks into that same buffer.",
])
def test_demonstratives_consequences_and_list_intros_lean_on_their_context(sentence):
    assert dangling_reason(sentence) is not None


@pytest.mark.parametrize("sentence", [
    "RoCE v2 packets are UDP packets, so a routed fabric classifies them by DSCP.",
    "Because the receiver advertises credits, an InfiniBand link is therefore lossless.",
    "If one switch port lacks PFC, then an incast test shows drops on that port.",
    "Pause frames stop the paused priority, and NICs on that priority wait too.",
    "ECN marks packets, and DCQCN in the NIC reacts to those marks by slowing the sender.",
    "Latency on InfiniBand is lower than that of TCP over Ethernet.",
    "Standards such as IEEE 802.1Qbb define PFC.",
    "Those who tune RoCE set DSCP 26 for RDMA traffic on NVIDIA switches.".replace(
        "Those who", "Operators who"),
    "A 400 Gb/s NIC sends 50 GB/s in each of two directions.",
    "Each NIC reads chunks from its own GPU's memory and writes incoming chunks into that same "
    "GPU's memory.",
])
def test_references_resolved_inside_the_sentence_pass(sentence):
    assert dangling_reason(sentence) is None, dangling_reason(sentence)


@pytest.mark.parametrize("sentence", [
    # a mistake counted after another one said before
    "Assuming that every RDMA deployment must be lossless is also a mistake, because newer "
    "NICs tolerate drops.",
    "Assuming that NVLink crosses the data center network is also a mistake.",
    "Planning one 800 Gb/s Ethernet link per GPU on ConnectX-8 is a mistake too, because "
    "ConnectX-8 runs Ethernet as two 400 Gb/s ports.",
    "Treating Spectrum-X as plug-and-play is a further mistake, because the settings must match.",
    "Running RoCE over VXLAN without copying DSCP and ECN is a third mistake, because the "
    "switches treat RoCE as lossy.",
    "Skipping the out-of-band network is another mistake, because operators lose the server.",
    "A mismatch between the two ends of a link is also a common PFC mistake.",
    # going further than something said before
    "Low-communication training methods go further and synchronize the sites every few hundred "
    "steps.",
    "A rail-only design goes further and removes the spine layer.",
    # a leading also / too / instead: in addition to, like, or in place of what came before
    "Links between data centers instead rely on deep-buffer switches and retransmission.",
    "Cisco announced the 8223 routing system in October 2025, also at 51.2 Tb/s with deep "
    "buffers.",
    "ConnectX adapters also support GPUDirect RDMA, so data moves without a host copy.",
    "No, distributed training also runs well on RoCE v2 Ethernet with PFC and ECN.",
    "Tuned RDMA Ethernet such as NVIDIA Spectrum-X also carries clusters of 100,000 GPUs.",
    "A RoCE flow headed for an idle server is paused too, which is head-of-line blocking.",
    "Too, the switch marks packets with ECN.",
    "An NVL72 rack also needs liquid cooling, which adds facility cost on top of the rack price.",
    # a list of kinds whose subject was named before
    "The main kinds are data parallelism, tensor parallelism and pipeline parallelism.",
    "The biggest levers are the bandwidth per GPU, the oversubscription ratio and the topology.",
    "All four kinds plug into the same port cages, such as QSFP112 and OSFP.",
])
def test_sentences_that_continue_a_list_of_mistakes_or_alternatives_lean(sentence):
    assert dangling_reason(sentence) is not None


@pytest.mark.parametrize("sentence", [
    "GPUs inside one server use NVLink instead of InfiniBand.",
    "InfiniBand does not use IP ECN and instead carries its own FECN and BECN bits.",
    "Meta's fabrics did not rely on DCQCN, and instead combined PFC with receiver-driven "
    "admission.",
    "Incast, also called endpoint congestion, happens when many senders target one receiver.",
    "Pipeline parallelism is also called inter-layer model parallelism.",
    "The back-end network, also known as the compute fabric, carries GPU-to-GPU traffic.",
    "DCQCN depends on ECN, but ECN is also used by TCP and other protocols.",
    "ZeRO stage 1 shards the optimizer state, stage 2 also shards the gradients, and stage 3 "
    "also shards the weights.",
    "A DGX H100 server also has two ConnectX-7 adapters for storage, in addition to its eight "
    "compute ports.",
    "A common mistake is assuming that security isolation also gives performance isolation.",
    "Yes, InfiniBand carries RDMA, and RoCE v2 also carries RDMA over Ethernet.",
    "Tensor parallelism lets a layer that is too large for one GPU run across a group of GPUs.",
    "Copper carries 100 Gb/s per lane only a few meters before the signal degrades too much.",
    "A PFC watchdog detects a queue that stays paused for too long.",
    "The main kinds of parallelism in distributed training are data, tensor and pipeline "
    "parallelism.",
    "The main reason to train across data centers is power.",
    "The two kinds of congestion that dominate GPU fabrics are incast and hot spots.",
    "Scale-up and scale-out are the two ways to make a GPU system bigger.",
    "A common mistake is treating a DPU as a second server CPU for application code.",
    "Links that go further than 100 km need deep-buffer routers.",
    "Interleaved schedules cut the pipeline bubble further than 1F1B at the cost of more "
    "messages.",
])
def test_also_too_instead_and_kinds_resolved_inside_the_sentence_pass(sentence):
    assert dangling_reason(sentence) is None, dangling_reason(sentence)


@pytest.mark.parametrize("sentence, alone", [
    # Quoted without its "No," the statement must still be one: "Not as fast as ..." is not.
    ("No, not as fast as tensor parallelism, because it sends only the activations.", False),
    ("Yes, but only through the switch side, not module to module: a twin-port module works.",
     False),
    # A short hedge closed by a colon goes with the word; a statement after the comma stands.
    ("Yes, but only bluntly: PFC pause frames stop the sending NICs completely.", True),
    ("No, not necessarily: scaling efficiency on 16 GPUs says little about thousands.", True),
    ("No, pipeline parallelism does not need as fast a network as tensor parallelism.", True),
    ("No, NCCL runs only on NVIDIA GPUs.", True),
])
def test_what_follows_an_faq_yes_or_no_must_stand_alone(sentence, alone):
    assert (dangling_reason(sentence) is None) is alone, dangling_reason(sentence)
