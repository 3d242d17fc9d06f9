"""Features the learned parts see: one row per candidate, the same at training and answering."""

import pytest

from assistant.corpus import Chunk
from assistant.features import SENTENCE_FEATURES, Idf, sentence_features


def _chunk(i: int, text: str, section: str = "How it works", slug: str = "roce") -> Chunk:
    return Chunk(id=f"{slug}::{i}::s0", slug=slug, title=slug, section=section, text=text,
                 url=f"/glossary/{slug}", kind="glossary", unit="sentence",
                 chunk_id=f"{slug}::{i}", position=0)


def test_idf_weighs_rare_words_above_common_ones():
    idf = Idf([_chunk(i, t) for i, t in enumerate(
        ["RoCE runs over Ethernet.", "RoCE needs PFC.", "RoCE uses UDP port 4791."])])
    assert idf("4791") > idf("roce")
    assert idf("never-seen") == idf.unseen


def test_one_row_per_candidate_with_every_feature(fake_bot):
    from assistant.draft import candidates

    turn = fake_bot.turn("what udp port does roce v2 use")
    draft = fake_bot.draft(turn.question, turn.retrieval)
    pool = candidates(draft)[:10]
    rows = sentence_features(draft, pool, pool[1].sentence, [pool[2].sentence.id], {},
                             Idf([c.sentence for c in pool]))
    assert len(rows) == len(pool) and all(len(r) == len(SENTENCE_FEATURES) for r in rows)
    column = SENTENCE_FEATURES.index
    assert [r[column("rule_lead")] for r in rows[:3]] == [0.0, 1.0, 0.0]
    assert rows[2][column("faq_lead")] == 1.0
    assert rows[0][column("rank")] == pytest.approx(1.0)
    assert sum(rows[0][column(f"intent_{i}")] for i in
               ("definition", "yes_no", "quantity", "general")) == 1.0
    assert sentence_features(draft, [], None, [], {}, Idf([])) == []


_ROWS_IN_A_FRESH_PROCESS = """
import json, sys
from assistant.config import Settings
from assistant.draft import candidates
from assistant.features import Idf, sentence_features
from assistant.testing import fake_assistant
bot = fake_assistant(Settings.from_env({}, corpus_dir=sys.argv[1], data_dir=sys.argv[2]))
idf = Idf(bot.retriever.sentences)
out = []
for q in ("does roce v2 need a lossless network with pfc and ecn",
          "why is all-reduce bandwidth bound on large gpu clusters"):
    turn = bot.turn(q)
    draft = bot.draft(turn.question, turn.retrieval)
    pool = candidates(draft)[:20]
    out.append(sentence_features(draft, pool, None, [], {}, idf))
print(json.dumps(out))
"""


def test_rows_are_the_same_whatever_the_process_hash_seed(tmp_path):
    """Training in one process and answering in another (or two app processes) must see the
    same numbers: no float is summed in a set's order, which changes with PYTHONHASHSEED."""
    import os
    import subprocess
    import sys

    from tests.conftest import CORPUS

    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _ROWS_IN_A_FRESH_PROCESS, str(CORPUS),
                               str(tmp_path)], env=env, capture_output=True, text=True,
                              timeout=120, check=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and len(outputs[0]) > 1000


def test_a_sentence_about_another_generation_of_the_asked_product_is_marked():
    """"How fast is nvlink 5?": a sentence about NVLink 6 that names NVLink 5 only to compare
    is about another generation; one about NVLink 5, or a question naming none, is not."""
    from assistant.features import _other_generation
    from assistant.polarity import generations

    asked = generations("how much bandwidth does nvlink 5 give per gpu")
    assert _other_generation(asked, "NVLink 6 gives 3.6 TB/s per GPU, twice NVLink 5.") == 1.0
    assert _other_generation(asked, "NVLink 5 on Blackwell gives 1.8 TB/s per GPU.") == 0.0
    assert _other_generation(asked, "ConnectX-8 has a 800G port.") == 0.0  # another product
    assert _other_generation(generations("how fast is nvlink"), "NVLink 6 gives ...") == 0.0
