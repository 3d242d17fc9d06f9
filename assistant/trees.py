"""Gradient-boosted trees, fitted with scikit-learn or LightGBM and kept as plain arrays.

The learned parts (learned.py's sentence ranker and FAQ pair matcher, rerank.py's page
ranking) score a few dozen rows per question. scikit-learn and LightGBM are imported only to
fit; the fitted trees are stored as JSON arrays and walked with numpy, so answering imports
neither and a cached model loads in milliseconds.
"""

from __future__ import annotations

from functools import cached_property
from itertools import groupby
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


#: The FAQ pair matcher's booster (its threshold, faq.PAIR_AT, was chosen with this shape).
SMALL_TREES: dict[str, Any] = {"max_depth": 3, "max_iter": 150, "learning_rate": 0.05}
#: The sentence ranker's: five-fold CV by question over golden + dev (five shuffles), the
#: share of questions whose top-ranked candidate holds a key fact went 0.821 -> 0.833 against
#: SMALL_TREES; it costs about 0.3 ms more per answer (30 candidates).
SENTENCE_TREES: dict[str, Any] = {"max_depth": 5, "max_iter": 250, "learning_rate": 0.04,
                                  "min_samples_leaf": 40}

#: The sentence order's LambdaRank booster (LightGBM), which learns which candidate goes
#: first among one question's candidates rather than each candidate's probability alone.
#: Five-fold CV by question over golden + dev (three shuffles): the top candidate holds a key
#: fact 0.855 (SENTENCE_TREES' classifier) -> 0.867; depth 5 keeps the complete-tree walk
#: small. Truncation 2: only the top two places' swaps drive the gradient.
RANK_TREES: dict[str, Any] = {"n_estimators": 400, "learning_rate": 0.03, "num_leaves": 31,
                              "max_depth": 5, "min_child_samples": 80,
                              "lambdarank_truncation_level": 2}


class Trees:
    """Gradient-boosted trees (scikit-learn's HistGradientBoostingClassifier) as arrays."""

    def __init__(self, baseline: float, feature: np.ndarray, threshold: np.ndarray,
                 left: np.ndarray, right: np.ndarray, leaf: np.ndarray, value: np.ndarray,
                 roots: np.ndarray, depth: int):
        self.baseline, self.feature, self.threshold = baseline, feature, threshold
        self.left, self.right, self.leaf, self.value = left, right, leaf, value
        self.roots, self.depth = roots, depth

    @classmethod
    def fit(cls, rows: list[list[float]], labels: list[int], seed: int = 0,
            shape: dict[str, Any] | None = None) -> Trees:
        """Fit the trees on feature rows and 0/1 labels (`shape`: the booster's depth, rounds,
        rate and leaf size; SMALL_TREES unless given)."""
        import numpy as np
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier(**(shape or SMALL_TREES), random_state=seed)
        model.fit(np.asarray(rows, dtype=np.float64), np.asarray(labels))
        nodes = [p[0].nodes for p in model._predictors]  # one tree per boosting round
        offsets = np.cumsum([0] + [len(n) for n in nodes[:-1]])
        allnodes = np.concatenate(nodes)
        shift = np.repeat(offsets, [len(n) for n in nodes])
        return cls(float(np.ravel(model._baseline_prediction)[0]),
                   allnodes["feature_idx"].astype(np.int64),
                   allnodes["num_threshold"].astype(np.float64),
                   allnodes["left"].astype(np.int64) + shift,
                   allnodes["right"].astype(np.int64) + shift,
                   allnodes["is_leaf"].astype(bool), allnodes["value"].astype(np.float64),
                   offsets.astype(np.int64), int(allnodes["depth"].max()))

    @classmethod
    def fit_ranker(cls, rows: list[list[float]], labels: list[int], groups: list[int],
                   seed: int = 0, shape: dict[str, Any] | None = None) -> Trees:
        """Fit LambdaRank trees on feature rows, 0/1 labels and each row's group (its
        question; a group's rows are contiguous). `proba` then gives a score whose order
        within a group is the learned order; it is not a probability."""
        import lightgbm
        import numpy as np

        sizes = [len(list(run)) for _, run in groupby(groups)]
        model = lightgbm.LGBMRanker(objective="lambdarank", random_state=seed, n_jobs=1,
                                    deterministic=True, force_row_wise=True, verbose=-1,
                                    **(shape or RANK_TREES))
        model.fit(np.asarray(rows, dtype=np.float64), np.asarray(labels), group=sizes)
        return cls.from_lightgbm(model.booster_.dump_model())

    @classmethod
    def from_lightgbm(cls, dump: dict[str, Any]) -> Trees:
        """The arrays of a LightGBM model's `dump_model()` (numerical "<=" splits only)."""
        import numpy as np

        feature, threshold, left, right, leaf, value, roots = [], [], [], [], [], [], []
        depth = 0

        def add(node: dict[str, Any], level: int) -> int:
            nonlocal depth
            at = len(feature)
            for column in (feature, threshold, left, right, leaf, value):
                column.append(0)
            if "leaf_value" in node:
                leaf[at], value[at] = True, float(node["leaf_value"])
                depth = max(depth, level)
                return at
            if node.get("decision_type") != "<=":
                raise ValueError(f"unsupported split {node.get('decision_type')!r}")
            feature[at], threshold[at] = int(node["split_feature"]), float(node["threshold"])
            left[at] = add(node["left_child"], level + 1)
            right[at] = add(node["right_child"], level + 1)
            return at

        for tree in dump["tree_info"]:
            roots.append(add(tree["tree_structure"], 0))
        ints = {"dtype": np.int64}
        return cls(0.0, np.asarray(feature, **ints), np.asarray(threshold, dtype=np.float64),
                   np.asarray(left, **ints), np.asarray(right, **ints),
                   np.asarray(leaf, dtype=bool), np.asarray(value, dtype=np.float64),
                   np.asarray(roots, **ints), depth)

    def proba(self, rows: list[list[float]]) -> list[float]:
        """Probability of the positive class for each row."""
        import numpy as np

        x = np.asarray(rows, dtype=np.float64)
        if not len(x):
            return []
        feature, threshold, value = self._complete
        trees, inner = len(self.roots), 2 ** self.depth - 1
        base = np.arange(trees, dtype=np.intp) * inner
        at = (np.arange(len(x), dtype=np.intp) * x.shape[1])[:, None]
        flat = x.ravel()
        slot = np.broadcast_to(base, (len(x), trees))  # base + the slot within each tree
        for _ in range(self.depth):
            right = flat.take(at + feature.take(slot)) > threshold.take(slot)
            slot = 2 * slot - base + 1 + right  # a child of slot k is 2k+1 or 2k+2
        leaves = slot - base - inner + np.arange(trees, dtype=np.intp) * (inner + 1)
        raw = self.baseline + value.take(leaves).sum(axis=1)
        return list(1.0 / (1.0 + np.exp(-raw)))

    @cached_property
    def _complete(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The trees padded to complete binary trees of the deepest one's depth, flat: slot
        k's children are 2k+1 and 2k+2, and a leaf above the last level becomes inner slots
        that always go left (threshold +inf) down to its value. Walking them needs no leaf
        test: about 2.5x faster than walking the nodes as stored (0.09 against 0.22 ms for
        30 candidates through the sentence ranker's 250 trees)."""
        import numpy as np

        depth, trees = self.depth, len(self.roots)
        inner = 2 ** depth - 1
        feature = np.zeros((trees, inner), dtype=np.intp)
        threshold = np.full((trees, inner), np.inf)
        value = np.zeros((trees, inner + 1))
        for t, root in enumerate(self.roots.tolist()):
            stack = [(root, 0, 0)]  # (node, slot, level)
            while stack:
                node, slot, level = stack.pop()
                if self.leaf[node]:
                    # the leftmost slot below: k -> 2k+1, (depth - level) times
                    value[t, (slot + 1) * 2 ** (depth - level) - 1 - inner] = self.value[node]
                    continue
                feature[t, slot], threshold[t, slot] = self.feature[node], self.threshold[node]
                stack += [(int(self.left[node]), 2 * slot + 1, level + 1),
                          (int(self.right[node]), 2 * slot + 2, level + 1)]
        return feature.ravel(), threshold.ravel(), value.ravel()

    def to_json(self) -> dict[str, Any]:
        """The arrays as lists."""
        return {"baseline": self.baseline, "depth": self.depth,
                **{k: getattr(self, k).tolist() for k in
                   ("feature", "threshold", "left", "right", "leaf", "value", "roots")}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Trees:
        """Rebuild from `to_json`."""
        import numpy as np

        kinds = {"feature": np.int64, "threshold": np.float64, "left": np.int64,
                 "right": np.int64, "leaf": bool, "value": np.float64, "roots": np.int64}
        return cls(float(data["baseline"]), depth=int(data["depth"]),
                   **{k: np.asarray(data[k], dtype=t) for k, t in kinds.items()})
