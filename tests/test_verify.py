"""The checks an LLM answer passes before a visitor sees it."""

from assistant.verify import Verifier, flatten_numbers


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
