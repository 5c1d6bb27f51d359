"""The main job on the embedded default: build a campaign store from the sample collections in
`corpora/`, score every sample run with human and BINARIZED F3, and report as ACLIA's overview does."""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from sepia import vocab
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.scoring.evaluate import Evaluator, RunScore, Settings
from sepia.store import io
from sepia.store.db import Store

MATCHERS = ("human", "binarized")


@dataclass
class LoadReport:
    lang: str
    documents: int = 0
    topics: int = 0
    nuggets: int = 0
    runs: list[str] = field(default_factory=list)
    judgments: int = 0


def collection_files(folder: Path) -> dict:
    """What one sample collection holds: documents, topics, gold standard, runs and judgments."""
    special = {folder / "topics.xml", folder / "gold.xml"}
    runs = sorted(p for p in folder.rglob("*.xml") if p not in special and "docs" not in p.relative_to(folder).parts)
    return {"docs": folder / "docs", "topics": folder / "topics.xml", "gold": folder / "gold.xml", "runs": runs,
            "judgments": folder / "judgments.tsv", "qrels": folder / "qrels.tsv"}


def sample_collections(corpora: Path) -> list[Path]:
    """The sample collections shipped in `corpora/`: one folder per target language."""
    return [corpora / lang.lower() for lang in vocab.LANGUAGES if (corpora / lang.lower() / "topics.xml").exists()]


def reset_data_dir(home: Path) -> None:
    """The demo starts from nothing each time: its own store and indexes, never the user's."""
    for name in ("sepia.db", "sepia.db-wal", "sepia.db-shm"):
        (home / name).unlink(missing_ok=True)
    shutil.rmtree(home / "index", ignore_errors=True)


def load_collection(store: Store, folder: Path, progress: bool = True) -> LoadReport:
    """Ingest, index and import one sample collection; every file is validated before it is stored."""
    from sepia.corpus.ingest import ingest
    from sepia.search.indexer import build_index

    lang = folder.name.upper()
    files = collection_files(folder)
    report = LoadReport(lang)
    report.documents = ingest(store, lang, [files["docs"]], progress=progress).stored
    build_index(store, lang, progress=progress)
    topics = read_file(files["topics"], "topic")
    gold = read_file(files["gold"], "gold")
    runs = [read_file(path) for path in files["runs"]]
    judgments = read_judgments(files["judgments"]) if files["judgments"].exists() else []
    with store.transaction() as session:
        report.topics = io.import_topics(session, topics)
        report.nuggets = io.import_gold(session, gold, replace=True)
        for run in runs:
            report.runs.append(io.import_run(session, run).run_id)
        report.judgments = io.import_judgments(session, judgments)
    return report


def score_store(store: Store, settings: dict | None = None) -> dict[str, list[RunScore]]:
    """Score every CCLQA run in the store with each matcher, reading everything back from the store."""
    with store.transaction() as session:
        gold = io.export_gold(session)
        runs = [io.export_run(session, run_id) for run_id in io.run_ids(session, "cclqa")]
        judgments = io.export_judgments(session)
    results = {}
    for matcher in MATCHERS:
        evaluator = Evaluator(gold, Settings(matcher=matcher, **(settings or {})), judgments)
        results[matcher] = evaluator.rank(runs)
    return results


def score_ir4qa(store: Store, folders: list[Path]) -> list:
    """AP, Q and nDCG of every IR4QA run in the store against the collections' qrels."""
    from sepia.ir4qa.evaluate import evaluate_ir4qa
    from sepia.ir4qa.measures import default_gains
    from sepia.ir4qa.qrels import read_qrels

    qrels = {}
    for path in (collection_files(folder)["qrels"] for folder in folders):
        if path.exists():
            qrels.update(read_qrels(path))
    with store.transaction() as session:
        runs = [io.export_run(session, run_id, "ir4qa") for run_id in io.run_ids(session, "ir4qa")]
    return evaluate_ir4qa(qrels, runs, default_gains(qrels)) if runs and qrels else []
