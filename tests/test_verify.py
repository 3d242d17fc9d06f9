from assistant.verify import Verifier, complete_prefix, flatten_numbers, numbers_in, split_sentences


def test_numbers_ignore_markers_and_list_numbers():
    # "v2" is a name, not a figure; [3] is a citation; "1." a list number.
    assert numbers_in("1. RoCE v2 uses port 4791 [3]. It costs $179,200 [12].") == [
        4791.0, 179200.0]


def test_sentences_keep_their_markers():
    assert split_sentences("A is B [1]. C is D. [2]\n- E is F [3]") == [
        "A is B [1].", "C is D. [2]", "- E is F [3]"]


def test_verifier_flags_each_kind_of_problem():
    v = Verifier(passages=2, allowed_numbers=[4791.0], canary="CANARY-x")
    assert v.check("RoCE v2 uses port 4791 [1].") == []
    assert "without a citation" in v.check("RoCE is good.")[0]
    assert "only 2 passages" in v.check("RoCE is good [3].")[0]
    assert "figure 9999" in v.check("RoCE uses 9999 [1].")[0]
    assert "canary" in v.check("CANARY-x [1].")[0]


def test_rounded_tool_figures_are_accepted():
    v = Verifier(passages=1, allowed_numbers=flatten_numbers({"cost": 0.5555555, "gpu_hours":
                                                              29491.91}))
    assert v.check("That is $0.56 per million tokens [1].") == []
    assert v.check("About 29,492 GPU-hours [1].") == []


def test_complete_prefix_waits_for_the_end_of_a_sentence():
    assert complete_prefix("RoCE runs on UDP [1]. RoCE v2 is rout") == len("RoCE runs on UDP [1].")
    assert complete_prefix("RoCE runs on UDP [1") == 0
