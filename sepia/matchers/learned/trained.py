"""A learned matcher trained once on a campaign's judgments and kept as a file, to score runs nobody
judged (`sepia matcher train`, then `sepia evaluate --matcher learned --matcher-option model=MODEL`).

The file is JSON: the classifier's numbers, the judged pairs' best-aligned words and decisions per
nugget (for judgment reuse), the training data's digest and the versions that made it. A model of
another MODEL_VERSION is refused with one line: its features would mean something else.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from sepia import vocab
from sepia.versions import __version__
from sepia.formats.model import CCLQARun, GoldStandard, Judgment
from sepia.matchers.learned.crossrun import RATE_COLUMNS, BlockSimilarities
from sepia.matchers.learned.model import Classifier, fit_classifier
from sepia.matchers.learned.pairs import PAIR_FEATURES, Key, Pairs, build_pairs
from sepia.matchers.learned.reuse import RATE_FEATURES, REUSE_FEATURES, reuse_features, similarity

ALL_FEATURES = PAIR_FEATURES + REUSE_FEATURES

FORMAT = "sepia-learned-matcher"
MODEL_VERSION = 3  # bump whenever a feature's meaning changes (2: CJK numerals read by sepia.text.numbers;
# 3: soft recall, nugget weight, context features, support rates; judged pairs keep their evidence values)


class ModelError(ValueError):
    """Bad training input or an unusable model file; the message is one line."""


def check_training_input(gold: GoldStandard, judgments: Sequence[Judgment]) -> None:
    """A gold standard with nuggets and judgments that name only its nuggets, or ModelError."""
    from sepia.formats.judgments import unknown_nuggets

    if not any(t.nuggets for t in gold.topics):
        raise ModelError("the gold standard has no nuggets: there is nothing to match")
    missing = unknown_nuggets(((j.topic_id, j.nugget_id) for j in judgments), gold)
    if missing:
        shown = ", ".join(f"{t} {n}" for t, n in missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise ModelError(f"the judgments name {len(missing)} nuggets the gold standard lacks: {shown}")


def judged_pairs(gold: GoldStandard, runs: Sequence[CCLQARun], judgments: Sequence[Judgment]) -> Pairs:
    """The pairs of these runs, labelled by the judgments, after checking that there is something to
    learn from (ModelError otherwise)."""
    check_training_input(gold, judgments)
    pairs = build_pairs(gold, runs, judgments)
    if np.isnan(pairs.labels).all():
        raise ModelError("no judgment names an answer of the runs given: give the runs the judgments judged")
    return pairs


def training_digest(pairs: Pairs, gold: GoldStandard, runs: Sequence[CCLQARun]) -> str:
    """SHA-256 of what the model learnt from: the nuggets' texts, the judged answers' texts and the
    decisions, in a fixed order (the same data gives the same digest whatever the files look like)."""
    texts = {(r.run_id, t.topic_id, a.rank): a.text for r in runs for t in r.topics for a in t.answers}
    nuggets = {(t.topic_id, n.nugget_id): n.text for t in gold.topics for n in t.nuggets}
    digest = hashlib.sha256()
    for key, label in sorted((k, v) for k, v in zip(pairs.keys, pairs.labels) if not np.isnan(v)):
        run, topic, rank, nugget = key
        digest.update(json.dumps([key, nuggets[topic, nugget], texts[run, topic, rank], label]).encode())
    return digest.hexdigest()


@dataclass
class TrainedModel:
    classifier: Classifier
    references: dict[str, dict[str, dict]]  # topic -> nugget -> {"text", "judged": [[words, label, run, evidence]]}
    training: dict
    versions: dict

    def probabilities(self, gold: GoldStandard, runs: Sequence[CCLQARun]) -> dict[Key, float]:
        """P(holds the nugget) of every (answer, nugget) pair of these runs. Judgment reuse compares
        each pair with the training pairs of the same nugget (same topic ID, nugget ID and text),
        never with those of its own run."""
        pairs = build_pairs(gold, runs)
        reuse = np.zeros((len(pairs), len(REUSE_FEATURES)))
        nugget_texts = {(t.topic_id, n.nugget_id): n.text for t in gold.topics for n in t.nuggets}
        for (topic, nugget), rows in pairs.blocks.items():
            known = self.references.get(topic, {}).get(nugget)
            judged = known["judged"] if known and known["text"] == nugget_texts[topic, nugget] else []
            words = [frozenset(w) for w, _, _, _ in judged]
            labels = np.array([label for _, label, _, _ in judged], dtype=float)
            sims = similarity([pairs.aligned[i] for i in rows], words)
            usable = np.array([[pairs.keys[i][0] != run for _, _, run, _ in judged] for i in rows], dtype=bool)
            evidence = np.array([values for _, _, _, values in judged], dtype=float)
            reuse[rows] = reuse_features(sims, labels, usable.reshape(len(rows), len(judged)),
                                         pairs.features[rows][:, RATE_COLUMNS], evidence)
        p = self.classifier.probabilities(np.hstack([pairs.features, reuse]))
        return dict(zip(pairs.keys, p.tolist()))

    def to_json(self) -> str:
        document = {"format": FORMAT, "model_version": MODEL_VERSION, "features": list(ALL_FEATURES),
                    "versions": self.versions, "training": self.training,
                    "classifier": self.classifier.as_dict(), "references": self.references}
        return json.dumps(document, ensure_ascii=False)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")


def train(gold: GoldStandard, runs: Sequence[CCLQARun], judgments: Sequence[Judgment]) -> TrainedModel:
    """A model of every judged pair of these runs. Each training pair's reuse features come from the
    other runs' judgments only, as they will for a run the model scores."""
    pairs = judged_pairs(gold, runs, judgments)
    judged = ~np.isnan(pairs.labels)
    runs_of = np.array([k[0] for k in pairs.keys], dtype=object)
    reuse = BlockSimilarities(pairs).reuse(runs_of, judged)
    classifier = fit_classifier(np.hstack([pairs.features, reuse])[judged], pairs.labels[judged])
    nugget_texts = {(t.topic_id, n.nugget_id): n.text for t in gold.topics for n in t.nuggets}
    references: dict[str, dict[str, dict]] = {}
    for (topic, nugget), rows in pairs.blocks.items():
        judged_rows = [[sorted(pairs.aligned[i]), float(pairs.labels[i]), pairs.keys[i][0],
                        pairs.features[i, RATE_COLUMNS].tolist()] for i in rows if judged[i]]
        if judged_rows:
            references.setdefault(topic, {})[nugget] = {"text": nugget_texts[topic, nugget], "judged": judged_rows}
    judged_runs = sorted({k[0] for k, j in zip(pairs.keys, judged) if j})
    training = {"digest": training_digest(pairs, gold, runs), "pairs": int(judged.sum()), "runs": judged_runs,
                "languages": sorted({run_language(r) for r in judged_runs})}
    return TrainedModel(classifier, references, training, versions())


def run_language(run_id: str) -> str:
    """The target language of a run's responses, as its ID names it ("?" when it names none)."""
    parsed = vocab.parse_run_id(run_id)
    return parsed.target_lang if parsed else "?"


def versions() -> dict:
    import sklearn

    return {"sepia": __version__, "scikit-learn": sklearn.__version__, "numpy": np.__version__}


def load(path: str | Path) -> TrainedModel:
    """The model in that file, or ModelError saying in one line why it cannot be used."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"{path}: not a learned matcher model ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModelError(f"{path}: not a learned matcher model (train one with sepia matcher train)")
    made_by = document.get("versions", {}).get("sepia", "?") if isinstance(document.get("versions"), dict) else "?"
    if document.get("model_version") != MODEL_VERSION or document.get("features") != list(ALL_FEATURES):
        raise ModelError(f"{path}: a model of another version (made by SEPIA {made_by}, model version "
                         f"{document.get('model_version')!r}; this SEPIA reads version {MODEL_VERSION}): train it again")
    try:
        classifier = Classifier(**document["classifier"])
        if not len(classifier.coefficients) == len(classifier.mean) == len(classifier.scale) == len(ALL_FEATURES):
            raise ValueError("wrong number of coefficients")
        references = document["references"]
        for nuggets in references.values():
            for ref in nuggets.values():
                if not isinstance(ref["text"], str) or not all(
                        isinstance(words, list) and isinstance(label, (int, float)) and isinstance(run, str)
                        and isinstance(evidence, list) and len(evidence) == len(RATE_FEATURES)
                        and all(isinstance(v, (int, float)) for v in evidence)
                        for words, label, run, evidence in ref["judged"]):
                    raise ValueError("a judged pair is not [words, decision, run, evidence]")
        return TrainedModel(classifier, references, document["training"], document["versions"])
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{path}: a damaged learned matcher model ({exc})") from None
