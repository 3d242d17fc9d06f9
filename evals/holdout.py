"""Dev as if held back: the learned parts fitted on golden + one half of dev and scored on the
other half, then the other way round; and golden with the parts fitted on dev alone.

`python -m assistant eval --splits dev` scores dev with parts fitted on dev itself, so a model
that memorises looks better there than it is (a LambdaRank order lifted in-sample dev
answer-first by six points and this by 1.3). Tune on these figures, not the in-sample ones;
the sealed test split stays for the end of a piece of work. The halves are cut by a hash of
each question's id, so they stay the same as dev grows by whole rounds.

The parts fitted on each half are cached under the data directory, keyed by LEARNED_VERSION,
RERANKER_VERSION and the files' contents (as `make run` caches its own): a change to how they
are *trained* is measured only once one of the versions changes; a change to how answers use
them is measured at once.

    python evals/holdout.py [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
KEYS = ("n", "hit_at_1", "answer_first", "nugget_recall", "yes_no_accuracy", "wrong_polarity",
        "out_of_scope_declined", "false_refusals", "tool_accuracy", "number_accuracy")
COUNTS = ("n", "wrong_polarity", "false_refusals")


def round_of(item_id: str) -> str:
    """The round (pool) a question was written in: "v20c" of "v20c-69", "c19" of "c19-4"."""
    return re.sub(r"-\d+$", "", item_id)


def halves(lines: list[str], by: str = "id") -> tuple[list[str], list[str]]:
    """Dev's questions in two halves, by a hash of each id, or (`by="round"`) of the round
    each was written in, so that no half holds questions its writer wrote beside the
    scored ones: the sealed test split is such a round, scored by parts fitted on others."""
    out: tuple[list[str], list[str]] = ([], [])
    for line in lines:
        item_id = json.loads(line)["id"]
        key = round_of(item_id) if by == "round" else item_id
        out[hashlib.sha256(key.encode()).digest()[0] % 2].append(line)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="write each half's answers here")
    parser.add_argument("--by", choices=("id", "round"), default="id",
                        help="cut dev by question (id) or by the round it was written in")
    args = parser.parse_args()
    from assistant.chain import Assistant
    from assistant.evaluate import run_eval, score
    from assistant.learned import Learned

    lines = [x for x in (HERE / "dev.jsonl").read_text().splitlines() if x.strip()]
    bot = Assistant.from_settings()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        parts = []
        for n, half in enumerate(halves(lines, args.by)):
            parts.append(Path(tmp) / f"dev-half{n}.jsonl")
            parts[-1].write_text("\n".join(half) + "\n")
        for n in (0, 1):
            bot.learning = Learned.load_or_train(bot, (HERE / "golden.jsonl", parts[n]))
            out = args.out / f"half{1 - n}.jsonl" if args.out else None
            result = run_eval(bot, parts[1 - n], out=out)
            rows += result.rows
            print(json.dumps({"fitted_on": f"golden + half {n}", "scored": f"half {1 - n}",
                              **{k: result.metrics[k] for k in KEYS}}), flush=True)
    both = score(rows)
    print(json.dumps({"scored": "dev, each half held out", **{k: both[k] for k in KEYS}}),
          flush=True)
    # golden too, as if held back: the parts fitted on dev alone
    bot.learning = Learned.load_or_train(bot, (HERE / "dev.jsonl",))
    result = run_eval(bot, HERE / "golden.jsonl",
                      out=args.out / "golden.jsonl" if args.out else None)
    print(json.dumps({"fitted_on": "dev", "scored": "golden",
                      **{k: result.metrics[k] for k in KEYS}}))


if __name__ == "__main__":
    main()
