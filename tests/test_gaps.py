"""Gaps: which logged questions count as one, and grouping them by wording (pure functions)."""

from __future__ import annotations

from assistant.answer import Answer, Citation
from assistant.gaps import gap_reason, group_gaps, normalise, off_subject


def _answer(text="NVLink links GPUs. [1]", subject="nvlink", **kw):
    citations = [Citation(1, "nvlink", "NVLink", "/glossary/nvlink", "Summary")]
    return Answer(text=text, citations=citations, subject=subject, confidence=0.9, **kw)


def test_group_gaps_is_a_pure_function():
    rows = [("is nvlink faster than pcie", "refusal", 0.1, "t3"),
            ("Is NVLink faster than PCIe?", "refusal", 0.2, "t2"),
            ("what about the weather", "refusal", 0.0, "t1")]
    gaps = group_gaps(rows)
    assert [g.count for g in gaps] == [2, 1]
    assert gaps[0].confidence == 0.2 and gaps[0].last_asked == "t3"
    assert normalise("  What's  NVLink?! ") == "what s nvlink"


def test_off_subject_first_sentence_is_a_gap():
    assert off_subject(_answer()) == ""
    assert off_subject(_answer("Nvlink is a link. [1]")) == ""
    assert off_subject(_answer("GPUs talk over links. [1] NVLink is one. [1]")) == "off-subject"
    assert off_subject(_answer("Nothing.", kind="refusal", refused=True)) == ""


def test_gap_rules():
    row = {"refused": 0, "kind": "answer", "gap": "", "confidence": 0.9, "rating": 0}
    assert gap_reason(row) == ""
    assert gap_reason({**row, "refused": 1}) == "refusal"
    assert gap_reason({**row, "kind": "clarify"}) == "clarify"
    assert gap_reason({**row, "gap": "unsettled"}) == "unsettled"
    assert gap_reason({**row, "confidence": 0.1}) == "low confidence"
    assert gap_reason({**row, "rating": -1}) == "thumbs-down"
