"""The main job on the embedded default: build a campaign store from the sample collections in
`corpora/`, score every sample run with human and BINARIZED F3, and report as ACLIA's overview does."""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from sepia import vocab
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.ir4qa.evaluate import IR4QAResults
from sepia.ir4qa.qrels import read_qrels_rows
from sepia.scoring.campaign import NothingToScore, score_stored_ir4qa, score_stored_runs
from sepia.scoring.evaluate import RunScore
from sepia.store import io
from sepia.store.db import Store
from sepia.store.relevance import import_qrels

MATCHERS = ("human", "binarized")


@dataclass
class LoadReport:
    lang: str
    documents: int = 0
    topics: int = 0
    nuggets: int = 0
    runs: list[str] = field(default_factory=list)
    judgments: int = 0
    relevance_judgments: int = 0


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
    qrels = read_qrels_rows(files["qrels"]) if files["qrels"].exists() else []
    with store.transaction() as session:
        report.topics = io.import_topics(session, topics)
        report.nuggets = io.import_gold(session, gold, replace=True)
        for run in runs:
            report.runs.append(io.import_run(session, run).run_id)
        report.judgments = io.import_judgments(session, judgments)
        report.relevance_judgments = import_qrels(session, qrels)
    return report


def score_store(store: Store, settings: dict | None = None) -> dict[str, list[RunScore]]:
    """Score every CCLQA run in the store with each matcher, reading everything back from the store
    (and keeping the scores there)."""
    return {matcher: score_stored_runs(store, {**(settings or {}), "matcher": matcher}) for matcher in MATCHERS}


def score_ir4qa(store: Store) -> IR4QAResults | None:
    """AP, Q and nDCG of every IR4QA run in the store against its relevance judgments; None when the
    store has no IR4QA runs or no relevance judgments."""
    try:
        return score_stored_ir4qa(store)
    except NothingToScore:
        return None
