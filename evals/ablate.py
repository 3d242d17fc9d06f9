"""What each learned part adds: the rules alone, then page order, the yes/no detector, the
sentence ranker (its LambdaRank order, classifier and labelled-neighbour memory), the FAQ pair
matcher and the labelled questions' Yes/No and scope memory added one at a time, each scored
on golden, dev and the sealed test split.

Every row is its own `Learned` over the same index and the same fitted parts (nothing is
refitted per row), and every answer is worked out (run_eval clears the answer cache).

    python evals/ablate.py [--splits golden,dev,test] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

KEYS = ("n", "hit_at_1", "hit_at_5", "answer_first", "nugget_recall", "yes_no_accuracy",
        "wrong_polarity", "tool_accuracy", "number_accuracy", "refusal_accuracy",
        "false_refusals")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", default="golden,dev,test")
    parser.add_argument("--out", type=Path, default=None, help="write each row's answers here")
    args = parser.parse_args()
    from assistant.chain import Assistant
    from assistant.evaluate import run_splits
    from assistant.learned import Learned

    bot = Assistant.from_settings()
    full = bot.learning

    def row(pages, kind, sentences, pairs=None, order=None, answered=False):
        learned = Learned(pages=pages, kind=kind, sentences=sentences, idf=full.idf,
                          faq_questions=full._faq_questions, pairs=pairs, order=order)
        if answered:  # the sentence ranker's memory of which sentences answered what
            learned.answered = full.answered
        return learned

    rows = [("rules only", row(None, None, None)),
            ("+ page order", row(full.pages, None, None)),
            ("+ yes/no detector", row(full.pages, full.kind, None)),
            ("+ sentence ranker", row(full.pages, full.kind, full.sentences,
                                      order=full.order, answered=True)),
            ("+ FAQ pair matcher", row(full.pages, full.kind, full.sentences, full.pairs,
                                       full.order, answered=True)),
            ("+ labelled Yes/No and scope memory (shipped)", full)]
    splits = tuple(args.splits.split(","))
    for name, learning in rows:
        bot.learning = learning
        out = args.out / name.replace(" ", "_").strip("+_()") if args.out else None
        results = run_splits(bot, splits, out_dir=out)
        print(json.dumps({"row": name, **{sp: {k: r.metrics[k] for k in KEYS}
                                          for sp, r in results.items()}}), flush=True)


if __name__ == "__main__":
    main()
