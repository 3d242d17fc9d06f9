"""The lead of a quantity answer: the figure said of the model and case asked about."""

from assistant.leads import _nearness
from assistant.words import model_fit, models


def test_models_are_a_word_and_a_small_number():
    assert models("tomahawk 6 switching capacity?") == {"tomahawk": {"6"}}
    assert models("ConnectX-8 or ConnectX-7, and PCIe Gen6") == {
        "connectx": {"8", "7"}, "gen": {"6"}}
    # Figures after a preposition, speeds and sizes are not models.
    assert models("a 400G port across 8 gpus with 10GB for 1024 ranks") == {}
    # Product codes are models too.
    assert models("GB200 NVL72 or DGX H100") == {"gb": {"200"}, "nvl": {"72"}, "h": {"100"}}


def test_a_sentence_about_another_model_loses():
    asked = models("tomahawk 6 switching capacity")
    assert model_fit(asked, "Broadcom Tomahawk 6 doubles capacity to 102.4 Tb/s.") == 1
    assert model_fit(asked, "Broadcom Tomahawk 5 offers 51.2 Tb/s.") == -1
    assert model_fit(asked, "Switch chips offer 51.2 Tb/s.") == 0


def test_a_figure_next_to_the_asked_word_is_nearer():
    asked = frozenset({"edr"})
    near = _nearness("EDR runs at 100 Gb/s per 4x port.", asked, ("bandwidth",))
    far = _nearness("The steps from EDR to HDR, HDR to NDR and NDR to XDR each doubled the "
                    "per-lane rate of the links, from 25 to 50, 100 and 200 Gb/s.", asked,
                    ("bandwidth",))
    assert near == 1.0 and far < near
    assert _nearness("EDR was common.", asked, ("bandwidth",)) == 0.0
