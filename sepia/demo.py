"""The main job on the embedded default: build a campaign store from the sample collections in
`corpora/`, score every sample run with human and BINARIZED F3, and report as ACLIA's overview does."""
from __future__ import annotations

import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sepia import vocab
from sepia.formats.judgments import read_judgments
from sepia.campaign.submission import import_run_file
from sepia.formats.read import read_bytes, read_file
from sepia.ir4qa.evaluate import IR4QAResults
from sepia.ir4qa.qrels import read_qrels_rows
from sepia.scoring.evaluate import RunScore
from sepia.services.scores import NothingToScore, score_stored_ir4qa, score_stored_runs
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from sepia.store.exchange.gold import import_gold

from sepia.store.exchange.judgments import import_judgments

from sepia.store.exchange.topics import import_topics
from sepia.store import models as db
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
    answer_texts: int = 0


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
    from sepia.services.documents import ingest
    from sepia.services.indexing import build_index

    lang = folder.name.upper()
    files = collection_files(folder)
    report = LoadReport(lang)
    report.documents = ingest(store, lang, [files["docs"]], progress=progress).stored
    build_index(store, lang, progress=progress)
    topics = read_file(files["topics"], "topic")
    gold = read_file(files["gold"], "gold")
    run_files = [(path.name, path.read_bytes()) for path in files["runs"]]
    runs = [(name, data, read_bytes(data, name=name)) for name, data in run_files]
    judgments = read_judgments(files["judgments"]) if files["judgments"].exists() else []
    qrels = read_qrels_rows(files["qrels"]) if files["qrels"].exists() else []
    with store.transaction() as session:
        report.topics = import_topics(session, topics)
        report.nuggets = import_gold(session, gold, replace=True)
        for name, data, run in runs:  # as an organiser imports them: downloadable, like uploaded runs
            report.runs.append(import_run_file(session, run, name, data, replace=False).run_id)
        report.judgments = import_judgments(session, judgments)
        report.relevance_judgments = import_qrels(session, qrels)
        report.answer_texts = add_answer_texts(session, lang)
    return report


SENTENCE_END = re.compile(r"(?<=[。！？!?])|\n|(?<=\.)\s")


def add_answer_texts(session, lang: str) -> int:
    """Give the sample topics what a topic developer would have saved: for each nugget, the sentence
    of each source document it was taken from, as an answer text linked to it; the topics are then
    completed, as they would be before nugget extraction. Returns how many answer texts were made."""
    topics = session.scalars(select(db.Topic).where(db.Topic.lang == lang).options(
        selectinload(db.Topic.nuggets).selectinload(db.Nugget.sources))).all()
    docids = {s.docid for t in topics for n in t.nuggets for s in n.sources}
    texts = dict(session.execute(select(db.Document.docid, db.Document.text).where(db.Document.docid.in_(docids))).all())
    made = 0
    for topic in topics:
        passages: dict[tuple[str, int], db.AnswerText] = {}
        for nugget in topic.nuggets:
            for source in nugget.sources:
                span = _sentence_around(texts.get(source.docid, ""), nugget.text)
                if span is None:
                    continue
                key = (source.docid, span[0])
                if key not in passages:
                    passages[key] = db.AnswerText(docid=source.docid, start=span[0], end=span[1],
                                                  text=texts[source.docid][span[0]:span[1]], created_by="demo")
                    topic.answer_texts.append(passages[key])
                nugget.answer_texts.append(passages[key])
        if passages:
            topic.status = "completed"
        made += len(passages)
    session.flush()
    return made


def _sentence_around(text: str, needle: str) -> tuple[int, int] | None:
    """The [start, end) of the sentence of `text` that holds `needle`, or else the one that shares the
    most of its characters (at least half of them: the sample nuggets paraphrase); None when none does."""
    bounds = [m.end() for m in SENTENCE_END.finditer(text)]
    spans = [(a, b) for a, b in zip([0] + bounds, bounds + [len(text)]) if text[a:b].strip()]
    wanted = Counter(c for c in needle if not c.isspace())

    def shared(span: tuple[int, int]) -> int:
        return sum((wanted & Counter(text[span[0]:span[1]])).values())

    exact = [span for span in spans if needle in text[span[0]:span[1]]]
    best = exact[0] if exact else max(spans, key=shared, default=None)
    if best is None or shared(best) * 2 < sum(wanted.values()):
        return None
    start, end = best
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def score_store(store: Store, settings: dict | None = None) -> dict[str, list[RunScore]]:
    """Score every CCLQA run in the store with each matcher, reading everything back from the store
    (and keeping the scores there)."""
    return {matcher: score_stored_runs(store, {**(settings or {}), "matcher": matcher}) for matcher in MATCHERS}


def score_qa(store: Store) -> list:
    """Answer-type accuracy of every Question Analysis run in the store; [] when there is none."""
    from sepia.services.qa_scores import score_stored_qa

    try:
        return score_stored_qa(store)
    except NothingToScore:
        return []


def score_ir4qa(store: Store) -> IR4QAResults | None:
    """AP, Q and nDCG of every IR4QA run in the store against its relevance judgments; None when the
    store has no IR4QA runs or no relevance judgments."""
    try:
        return score_stored_ir4qa(store)
    except NothingToScore:
        return None
