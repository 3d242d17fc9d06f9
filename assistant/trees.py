"""Gradient-boosted trees, fitted with scikit-learn or LightGBM and kept as plain arrays.

The learned parts (learned.py's sentence ranker and FAQ pair matcher, rerank.py's page
ranking) score a few dozen rows per question. scikit-learn and LightGBM are imported only to
fit; the fitted trees are stored as JSON arrays and, to answer, handed to onnxruntime (which
the embedding model already runs on) as one ONNX TreeEnsemble, so answering imports neither
and a cached model loads in milliseconds.
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
        session, constant = self._session
        raw = self.baseline + constant + (session.run(None, {"X": x})[0][:, 0]
                                          if session is not None else np.zeros(len(x)))
        return list(1.0 / (1.0 + np.exp(-raw)))

    @cached_property
    def _session(self) -> tuple[Any, float]:
        """(the trees as one ONNX TreeEnsemble run by onnxruntime, in double precision; the
        summed value of trees that are a single leaf). onnxruntime walks them in C++: 0.07
        against 0.25 ms for the sentence ranker's 30 candidates through 250 trees, and 0.12
        against 0.35 ms through the order's 400, as numpy's complete-tree walk did (the same
        scores to 1e-15)."""
        import numpy as np
        import onnxruntime
        from onnx import TensorProto, helper, numpy_helper

        inner = np.flatnonzero(~self.leaf)
        leaves = np.flatnonzero(self.leaf)
        at = np.zeros(len(self.leaf), dtype=np.int64)  # a node's place among its kind
        at[inner], at[leaves] = np.arange(len(inner)), np.arange(len(leaves))
        roots = [int(r) for r in self.roots if not self.leaf[r]]
        constant = float(sum(self.value[r] for r in self.roots if self.leaf[r]))
        if not roots:
            return None, constant

        def tensor(values: Any, dtype: Any) -> Any:
            return numpy_helper.from_array(np.asarray(values, dtype=dtype))

        left, right = self.left[inner], self.right[inner]
        node = helper.make_node(
            "TreeEnsemble", ["X"], ["Y"], domain="ai.onnx.ml", aggregate_function=1,
            post_transform=0, n_targets=1, tree_roots=at[roots].tolist(),
            nodes_featureids=self.feature[inner].tolist(),
            nodes_splits=tensor(self.threshold[inner], np.float64),
            nodes_modes=tensor(np.zeros(len(inner)), np.uint8),  # x <= split: the true side
            nodes_truenodeids=at[left].tolist(),
            nodes_trueleafs=self.leaf[left].astype(int).tolist(),
            nodes_falsenodeids=at[right].tolist(),
            nodes_falseleafs=self.leaf[right].astype(int).tolist(),
            leaf_targetids=[0] * len(leaves), leaf_weights=tensor(self.value[leaves], np.float64))
        graph = helper.make_graph(
            [node], "trees", [helper.make_tensor_value_info("X", TensorProto.DOUBLE, [None, None])],
            [helper.make_tensor_value_info("Y", TensorProto.DOUBLE, [None, 1])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                        helper.make_opsetid("ai.onnx.ml", 5)])
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.log_severity_level = 3
        return (onnxruntime.InferenceSession(model.SerializeToString(), options,
                                             providers=["CPUExecutionProvider"]), constant)

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
