"""Which way a corpus sentence settles a yes/no question (no model needed)."""

import pytest

from assistant.polarity import reading, without_opening


def words_share(*words):
    """A `covered` callable: the share of the given question words a text names."""
    def covered(text):
        lowered = text.lower()
        return sum(w in lowered for w in words) / len(words)
    return covered


def test_a_plain_statement_of_the_claim_says_no_yes():
    # A restatement was a coin flip on questions nobody tuned it to (4 of 8): it is quoted
    # without a polarity word.
    covered = words_share("run", "standby", "subnet manager")
    assert reading("Production fabrics run one or more standby subnet managers.", covered) is None


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
    # a short hedge before a colon belongs to the dropped word ("But only bluntly: ..." alone
    # answers nothing)
    assert without_opening("Yes, but only bluntly: PFC pause frames stop the senders.") == \
        "PFC pause frames stop the senders."


def test_no_as_a_determiner_denies():
    covered = words_share("roce", "subnet manager")
    sentence = ("Ethernet fabrics have no subnet manager, and RoCE v2 relies on Ethernet switching "
                "and IP routing rather than on a subnet manager.")
    assert reading(sentence, covered) == "No"



def test_a_relative_clause_denies_of_its_antecedent_not_the_claim():
    # "does it still need congestion control then?" after "is infiniband lossless?" (the
    # tenth round's test took a No from this sentence's "which ... does not do")
    def covered(text: str) -> float:
        return 1.0  # a question whose words are all terms: any clause naming them covers it

    sentence = ("DCQCN on RoCE and InfiniBand congestion control slow the offending senders to "
                "a sustainable rate, which link-level flow control does not do.")
    assert reading(sentence, covered) is None
    assert reading("InfiniBand does not need congestion control, which PFC provides.",
                   covered) == "No"

# --- never the wrong word (issue 22, section 3) ------------------------------------------------

from assistant.polarity import explain, qualifiers, same_qualifiers  # noqa: E402


def test_qualifiers_name_versions_generations_and_rates():
    assert qualifiers("can rocev2 traffic be routed") == {"v2"}
    assert qualifiers("RoCE v2 packets") == {"v2"}
    assert qualifiers("does zero-3 use more") == qualifiers("ZeRO stage 3 moves") == {"stage3"}
    assert qualifiers("a pcie gen5 x16 slot for an 800g nic") == {"gen5", "x16", "800g"}
    assert qualifiers("8 servers with 64 ib ports") == frozenset()  # counts are context
    assert "400g" in qualifiers("feeding a 400 Gb/s network card")


def test_a_yes_or_no_said_of_another_version_does_not_answer():
    assert not same_qualifiers("can roce v1 be routed", "RoCE v2 packets can be routed")
    assert same_qualifiers("can rocev2 be routed", "RoCE v2 packets can be routed across subnets")


def test_an_authored_it_depends_settles_nothing():
    assert explain("It depends: stages 1 and 2 keep the volume.", lambda t: 1.0)[0] is None
    assert explain("No, iWARP does not need PFC.", lambda t: 1.0) == ("", "own")


def test_a_plan_called_a_mistake_must_be_the_plan_asked_about():
    sentence = "Planning NVL72 racks for an air-cooled data hall is also a mistake."
    half = lambda text: 0.5  # noqa: E731  - "liquid cooled": only "cooled" is named
    assert explain(sentence, half, closest=True)[0] is None
    assumed = "A common mistake is assuming that SHARP is active on any InfiniBand fabric."
    assert explain(assumed, lambda t: 0.0, closest=True) == ("No", "mistake")


def test_a_mistake_whose_claim_is_turned_round_says_no_no():
    from assistant.polarity import explain

    covered = lambda text: 1.0  # noqa: E731
    turned = "A common mistake is assuming a rail-optimized design removes the need for a spine."
    assert explain(turned, covered, asked="do i need a spine switch for 16 servers?")[0] is None
    # turned alike ("skip" against "unnecessary"), the No stands
    alike = ("A common mistake is to think that selective retransmission makes congestion "
             "control unnecessary.")
    assert explain(alike, covered, asked="with selective retransmission can i skip "
                   "congestion control")[0] == "No"
    # "no part" against "not involved": one negation, turned alike
    none = "A common mistake is to think kernel bypass means the kernel takes no part at all."
    assert explain(none, covered, asked="with kernel bypass is the kernel not involved at "
                   "all")[0] == "No"
    # ... but "still do anything" asks the claim the other way round
    assert explain(none, covered, asked="with kernel bypass does the kernel still do anything "
                   "at all?")[0] is None
    # "standard" in the claim, "special" in the question: the opposite framing
    standard = "A common mistake is expecting SHARP on standard Ethernet switches for RoCE."
    assert explain(standard, covered, asked="does sharp need special switches")[0] is None
    # "above" in the claim, "before" in the question: another claim
    above = ("A common mistake is setting ECN marking thresholds above the PFC pause "
             "threshold, so PFC pauses the link before any packet is ever marked.")
    assert explain(above, covered, asked="should ecn marking start before pfc pauses kick "
                   "in?")[0] is None


@pytest.mark.parametrize(("question", "faq", "alike"), [
    # the same way round, reworded
    ("does rdma need a special nic", "Does RDMA need a special network card?", True),
    ("is normal ethernet lossless out of the box", "Is Ethernet lossless?", True),
    # opposite framings: a Yes or No borrowed from the FAQ would be the wrong way round
    ("will normal data center switches work for roce?", "Does RoCE need special switches?",
     False),
    ("do i have to enable nvlink manually for nccl?", "Does NCCL use NVLink automatically?",
     False),
    ("is a passive dac basically zero power?", "Does a DAC cable use power?", False),
    ("does zero-3 use more network than plain dp", "Does ZeRO-3 use more network?", True),
    ("will a 400g cx7 in a gen4 slot be bottlenecked?",
     "Can a ConnectX-7 reach 400 Gb/s in a PCIe Gen4 slot?", False),
    # a possibility asked against a requirement (the visitor check: "No, RoCE v2 runs on
    # standard ... switches" answered "can i use arista switches for roce")
    ("can i use arista switches for roce", "Does RoCE need special switches?", False),
    ("if our ib subnet manager crashes does traffic keep flowing?",
     "if the ib subnet manager dies does traffic stop?", False),
    ("does tensor parallelism cut the memory each gpu needs?",
     "Does tensor parallelism reduce the memory each GPU needs?", True),
])
def test_questions_asked_the_other_way_round_are_not_alike(question, faq, alike):
    from assistant.polarity import turned_alike

    assert turned_alike(question, faq) is alike


def test_bytes_are_not_bits():
    from assistant.polarity import qualifiers, same_qualifiers
    assert qualifiers("is a 400G nic really 400 GB/s?") == {"400g", "400gbyte"}
    assert not same_qualifiers("is it 400 GB/s?", "one 400 Gb/s adapter per GPU")
    assert same_qualifiers("is it 400 gb/s?", "one 400 Gb/s adapter per GPU")


def test_a_mistake_names_the_case_it_is_said_of():
    from assistant.polarity import mistake_qualifiers
    assert mistake_qualifiers("A common mistake is assuming that a cluster of many NVL72 "
                              "racks forms one giant NVLink domain.") == {"nvl72"}
    assert mistake_qualifiers("A common mistake is to treat RoCE v1 and RoCE v2 as "
                              "interchangeable, when only RoCE v2 can be routed.") == {"v1", "v2"}
    assert mistake_qualifiers("RoCE v2 can be routed.") == frozenset()


@pytest.mark.parametrize("sentence, rest", [
    ("Yes, in first products: the specification has been public since June 2025.",
     "The specification has been public since June 2025."),
    ("No, not in raw link speed: current adapters offer the same port speeds.",
     "Current adapters offer the same port speeds."),
    # a clause of its own before the colon is part of the answer, not a hedge
    ("No, PFC is flow control: pause frames propagate hop by hop.",
     "PFC is flow control: pause frames propagate hop by hop."),
])
def test_a_dropped_yes_or_no_takes_its_short_hedge_with_it(sentence, rest):
    assert without_opening(sentence) == rest


def test_a_variant_word_makes_another_product():
    # "A3 Mega" is not "A3 Ultra": a Yes said of the one is no Yes for the other
    assert qualifiers("is google cloud a3 mega rdma?") == {"a3mega"}
    assert not same_qualifiers("is google cloud a3 mega rdma?",
                               "Google Cloud's A3 Ultra VMs with H200 GPUs run RoCE.")


def test_out_of_order_is_asked_the_other_way_round_from_in_order():
    from assistant.polarity import framed_alike

    assert not framed_alike("can srd packets show up out of order?",
                            "Does SRD deliver packets in order?")
    assert framed_alike("does srd keep packets in order?", "Does SRD deliver packets in order?")


def test_judged_words_skip_an_opening_ok():
    from assistant.polarity import judged_words

    assert judged_words("is rail optimized better than fat tree") == {"better"}
    assert judged_words("ok so is it the same as a reduce-scatter then an all-gather?") == set()
    assert judged_words("is that ok for inference?") == {"ok"}



@pytest.mark.parametrize("question, faq, alike", [
    # a negated auxiliary asks the plain question: "No, InfiniBand does not use ECN"
    ("doesnt infiniband use ecn too?", "Does InfiniBand use ECN?", True),
    ("isn't rocev2 routable?", "Is RoCE v2 routable?", True),
    # a "not" inside the question still turns it round
    ("does infiniband not use ecn?", "Does InfiniBand use ECN?", False),
    # "rather than" turns like "instead of": its No of collectives is the Yes asked here
    ("pipeline parallel mostly uses point to point sends rather than collectives, right?",
     "Does pipeline parallelism mostly use collectives such as all-reduce?", False),
])
def test_a_negated_auxiliary_does_not_turn_a_question_round(question, faq, alike):
    from assistant.polarity import turned_alike

    assert turned_alike(question, faq) is alike


@pytest.mark.parametrize("question, identity", [
    ("Is a rail-optimized network the same as a fat-tree?", True),
    ("is roce just another name for infiniband", True),
    ("Is PFC a form of congestion control?", True),
    ("how is nvlink different from pcie?", True),
    ("is gpudirect storage just gpudirect rdma with a new name", True),
    ("leaf-spine and clos, same thing?", True),
    ("are rocev2 and iwarp the same?", True),
    ("if we go rail optimized can we get rid of the spine", False),
    ("does pfc slow each sender down?", False),
    # "the same fabric" names where, not what a thing is
    ("can we mix connectx-7 and connectx-8 nodes in the same fabric?", False),
    ("is infiniband faster than ethernet these days?", False),
])
def test_a_question_of_identity_is_told_from_one_of_capability(question, identity):
    from assistant.polarity import asks_identity

    assert asks_identity(question) is identity


def test_will_it_hit_line_rate_is_framed_against_will_it_be_bottlenecked():
    from assistant.polarity import framed_alike

    assert not framed_alike("will a 400g connectx-7 in a pcie gen4 x16 slot be bottlenecked?",
                            "will a 400g connectx 7 in a pcie gen4 x16 slot hit line rate")
    assert framed_alike("will it hit line rate", "can it reach line rate")


def test_putting_packets_back_in_order_frames_nothing():
    from assistant.polarity import framed_alike

    asked = "heard srd can deliver packets out of order, is that true? who puts them back in order"
    assert not framed_alike(asked, "Does SRD deliver packets in order?")
    assert framed_alike(asked, "Can SRD deliver packets out of order?")


def test_turning_words_that_differ_are_signed_by_whose_they_are():
    from assistant.polarity import turn_difference

    assert turn_difference("are output tokens pricier to serve than input tokens?",
                           "Are output tokens more expensive to serve?") == {"f:more"}
    assert turn_difference("does iwarp need pfc or a lossless fabric?",
                           "Does iWARP need Priority Flow Control?") == {"q:lossless"}
    assert turn_difference("does roce need pfc?", "Does RoCE need PFC?") == frozenset()


def test_a_question_turned_aside_differs_only_in_inert_words_and_never_in_a_negation():
    from assistant.polarity import turned_aside

    inert = frozenset({"f:more", "q:cant", "q:not"})
    assert turned_aside("are output tokens pricier to serve than input tokens?",
                        "Are output tokens more expensive to serve?", inert)
    # a word the labelled questions never showed inert still turns
    assert not turned_aside("does iwarp need pfc or a lossless fabric?",
                            "Does iWARP need Priority Flow Control?", inert)
    # a negation turns whatever the data say; so does a difference in framing
    assert not turned_aside("is roce not routable?", "Is RoCE routable?", inert)
    assert not turned_aside("will normal switches work for more roce?",
                            "Does RoCE need special switches?", inert)
    # questions asked alike are not "turned aside": turned_alike says so
    assert not turned_aside("does roce need pfc?", "Does RoCE need PFC?", inert)


@pytest.mark.parametrize(("text", "first"), [
    ("NVLink 6 gives each Rubin GPU 3.6 TB/s, twice NVLink 5.", ("nvlink", "6")),
    ("a cx7 and a ConnectX-8", ("connectx", "7")),
    ("BF3 runs Arm cores", ("bluefield", "3")),
    ("NVLink is fast", None),
])
def test_the_first_generation_a_text_names_is_what_it_is_about(text, first):
    from assistant.polarity import first_generation, generations

    assert first_generation(text) == first
    assert (first is None) == (not generations(text))


@pytest.mark.parametrize(("question", "turns"), [
    ("does gpudirect rdma work on roce or is it ib only", set()),
    ("does that work on roce too or just infiniband?", set()),
    ("does nccl work on roce or only on ib?", set()),
    ("does sharp only work on infiniband?", {"onli"}),  # the claim's own "only" still turns
    ("is it only for ib or does roce work too?", {"onli"}),
])
def test_the_only_of_an_alternative_option_turns_nothing(question, turns):
    from assistant.polarity import turning_words

    assert turning_words(question) == turns


@pytest.mark.parametrize(("question", "turns"), [
    ("Does ZeRO stage 3 send more data than DDP?", {"more"}),
    ("does zero-3 put more traffic on the network", {"more"}),
    ("is zero offload slower", set()),
    ("does lossless mean zero packets lost?", {"lossless", "zero"}),
])
def test_deepspeed_zero_is_not_the_word_zero(question, turns):
    from assistant.polarity import turning_words

    assert turning_words(question) == turns


def test_an_equivalent_never_learns_to_be_inert():
    """Even had the labelled questions shown "equivalent" to turn nothing, "an NCCL
    equivalent for AMD GPUs" asks of another library than "Does NCCL work on AMD GPUs?"."""
    from assistant.polarity import turned_aside

    asked, faq = "is there an nccl equivalent for amd gpus", "Does NCCL work on AMD GPUs?"
    assert not turned_aside(asked, faq, frozenset({"q:equival"}))
    assert turned_aside("are output tokens more expensive?", "Are output tokens expensive?",
                        frozenset({"q:more"}))


from assistant.polarity import other_ratio  # noqa: E402


def test_a_claimed_ratio_is_not_answered_by_a_word_said_of_another_ratio():
    yes_of_one_to_one = ("Is a leaf switch with 32 server ports at 400 Gb/s and 16 uplinks at "
                         "800 Gb/s non-blocking? Yes, it is 1:1 non-blocking")
    assert other_ratio("32 x 400g down and 16 x 800g up on a leaf, thats 2:1 right?",
                       yes_of_one_to_one)
    assert other_ratio("is a 3 : 1 leaf ok for training?", "No, a 2:1 leaf halves it")
    # the same ratio, a ratio only in the evidence, or one said outside the question: no
    assert not other_ratio("so it's 1:1 then?", yes_of_one_to_one)
    assert not other_ratio("is that leaf non-blocking?", yes_of_one_to_one)
    assert not other_ratio("thats non-blocking yeah? my coworker says 2:1", yes_of_one_to_one)
    assert not other_ratio("is 1.5:1 ok?", "Yes, 1.5:1 is fine")


from assistant.polarity import other_option  # noqa: E402


def test_an_alternative_question_is_answered_of_its_first_option():
    assert other_option("will rocev2 run on regular datacenter ethernet switches or do we need "
                        "special gear?", "Does RoCE need special switches?")
    assert not other_option("does rdma need a special nic or can any nic do it?",
                            "Does RDMA need a special network card?")
    assert not other_option("will rocev2 run on regular switches?",
                            "Does RoCE need special switches?")  # no alternative: not judged
    assert not other_option("does it need pfc or not?", "Does RoCE need PFC?")


from assistant.polarity import other_vendors  # noqa: E402


def test_a_word_said_of_other_vendors_does_not_answer_of_nvidias_own():
    others = "Do RoCE NICs from other vendors get Spectrum-X per-packet adaptive routing?"
    assert other_vendors("does adaptive routing on spectrum-x need nvidia nics on the far end?",
                         others)
    assert other_vendors("will a cx7 get the spectrum-x reordering", others)
    assert not other_vendors("do broadcom nics get spectrum-x adaptive routing?", others)
    assert not other_vendors("do non-nvidia nics get it even with a connectx switch?", others)
    assert not other_vendors("does spectrum-x need nvidia nics?", "Does Spectrum-X need PFC?")
