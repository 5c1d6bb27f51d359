"""Whoosh indexes, one per language under config.index_dir()/<lang>: build from a document source
(sepia.search.engine.DocumentSource; the store's is in sepia.services.indexing), add new documents
incrementally, report statistics. The build lifecycle (builder PID, workers that end with their
build) serves every engine.

A build writes its PID beside Whoosh's write lock (BUILDER_FILE) and removes it when done, so
the next build can tell a live build (refused, naming its PID) from one that was killed (its
unfinished work is discarded, a lock still held for it removed). Worker processes end with
their build: forked, they share its lock, and orphans would hold it for ever."""
from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from typing import Iterable

from whoosh import index as windex
from whoosh.index import LockError
from whoosh.multiproc import MpWriter, SubWriterTask

from sepia import config
from sepia.text.progress import maybe_progress
from sepia.search.analyzers import analysis_mismatch, record_analysis, schema_for
from sepia.search.engine import BuildReport, DocumentSource, IndexBusy, IndexStats, default_procs
from sepia.vocab import LANGUAGES

# Below this many new documents, starting worker processes costs more than it saves.
PARALLEL_MIN_DOCS = 2000
WRITER_MB = 256  # per worker's posting buffer
BUILDER_FILE = "BUILDER.pid"
LOCK_FILE = "MAIN_WRITELOCK"  # Whoosh's write lock of an index named MAIN
LOCK_WAIT = 2.0  # seconds to wait for a held lock: a killed build's workers need a moment to end
PARENT_POLL = 0.2  # seconds between a worker's checks that its build is still alive


def index_path(lang: str, index_dir: Path | str | None = None) -> Path:
    lang = lang.upper()
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    return Path(index_dir or config.index_dir()) / lang.lower()


def open_index(lang: str, index_dir=None):
    """The language's index, or None when it was never built."""
    path = index_path(lang, index_dir)
    if path.is_dir() and windex.exists_in(str(path)):
        return windex.open_dir(str(path))
    return None


def create_index(path: Path, lang: str):
    path.mkdir(parents=True, exist_ok=True)
    record_analysis(path, lang)
    return windex.create_in(str(path), schema_for(lang))


def indexed_docids(ix) -> set[str]:
    with ix.reader() as reader:
        return {value.decode("utf-8") for value in reader.lexicon("docid")}


class _Worker(SubWriterTask):
    """Whoosh's worker process, ending as soon as the build that started it is gone."""

    def __init__(self, *args):
        super().__init__(*args)
        self.build_pid = os.getpid()  # taken before the fork: the build may die before run()

    def run(self):
        end_with_parent(self.build_pid)
        super().run()


def end_with_parent(parent_pid: int) -> None:
    """In a worker process: exit as soon as the process that started it is gone."""
    def watch():
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


class _MpWriter(MpWriter):
    def _new_task(self):  # Whoosh's, with our worker
        task = _Worker(self.storage, self.indexname, self.jobqueue, self.resultqueue, self.subargs,
                       self.multisegment)
        self.tasks.append(task)
        task.start()
        return task

    def cancel(self):
        # Whoosh's only flags its own copies of the workers; idle ones would wait for jobs for
        # ever, and the failed build with them, joining them at exit.
        for task in self.tasks:
            task.terminate()
        super().cancel()


def open_writer(ix, expected: int, procs: int = 2):
    """A writer on `ix`, waiting up to LOCK_WAIT for its lock (LockError after that); with
    procs > 1 and enough documents, a multiprocessing writer analysing them on several cores."""
    if procs > 1 and expected >= PARALLEL_MIN_DOCS:
        return _MpWriter(ix, procs=procs, multisegment=True, limitmb=WRITER_MB, batchsize=200, timeout=LOCK_WAIT)
    return ix.writer(limitmb=WRITER_MB, timeout=LOCK_WAIT)


def write_documents(writer, docs: Iterable, on_added=None, add=None) -> int:
    """Add `docs` in one commit, all or nothing (writer.cancel() on any failure): by default dicts
    with docid, title, date, body for Whoosh's writer.add_document; else `add(doc)`."""
    add = add or (lambda doc: writer.add_document(**doc))
    added = 0
    try:
        for doc in docs:
            add(doc)
            added += 1
            if on_added:
                on_added(1)
        writer.commit()
    except BaseException:
        writer.cancel()
        raise
    return added


def _running(pid: int) -> bool:
    """Whether the process exists and is not a zombie (killed, its exit not yet collected)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        pass
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:  # no /proc: not Linux
        return True


def dead_builder(path: Path, lang: str) -> int | None:
    """The PID of a build that died while writing the index at `path`, or None when no build
    left its PID there; IndexBusy when that build is still running."""
    try:
        pid = int((path / BUILDER_FILE).read_text())
    except (OSError, ValueError):
        return None
    if _running(pid):
        raise IndexBusy(f"the {lang} index is being written by process {pid}; wait for it to finish, "
                        "or stop it, and try again")
    return pid


def _claim(ix, path: Path, lang: str, expected: int, procs: int, notes: list[str]):
    """A writer on the index at `path`, with this process's PID beside its lock. A lock still
    held for a dead build (by its orphaned workers) is removed; any other is respected."""
    try:
        writer = open_writer(ix, expected, procs)
    except LockError:
        dead = dead_builder(path, lang)
        if dead is None:
            raise IndexBusy(f"the {lang} index is locked by another writer; if no index build is "
                            f"running, remove {path / LOCK_FILE}") from None
        (path / LOCK_FILE).unlink()  # its holders keep the old file; the new writer locks a new one
        notes.append(f"{lang}: removed the write lock held for process {dead}, which is no longer running")
        writer = open_writer(ix, expected, procs)
    (path / BUILDER_FILE).write_text(f"{os.getpid()}\n")
    return writer


def note_dead_builder(path: Path, lang: str, notes: list[str]) -> None:
    """Say what was found of a build that died writing the index at `path` (IndexBusy if it lives)."""
    dead = dead_builder(path, lang)
    if dead:
        notes.append(f"{lang}: the build by process {dead} did not finish; what it had written is discarded")


def outdated_analysis(path: Path, lang: str, notes: list[str]) -> bool:
    """Whether the index at `path` was built with an analysis SEPIA no longer uses (noted: the
    build then writes it anew)."""
    problem = analysis_mismatch(path, lang)
    if problem:
        notes.append(f"{lang}: {problem}; rebuilt")
    return problem is not None


def build_whoosh_index(documents: DocumentSource, lang: str, index_dir=None, rebuild: bool = False,
                       procs: int | None = None, progress: bool = True) -> BuildReport:
    """Bring the language's Whoosh index up to date with `documents`: add the documents it lacks, or
    with `rebuild` write a fresh index beside the old one and swap it in when complete."""
    lang = lang.upper()
    procs = procs or default_procs()
    path = index_path(lang, index_dir)
    started = time.perf_counter()
    ix = None if rebuild else open_index(lang, index_dir)
    notes: list[str] = []
    if ix is not None and outdated_analysis(path, lang, notes):
        ix.close()
        ix = None
    fresh = ix is None
    target = path.with_name(path.name + ".new") if fresh else path
    note_dead_builder(target, lang, notes)
    if ix is None:
        shutil.rmtree(target, ignore_errors=True)
        ix = create_index(target, lang)
    skip = set() if fresh else indexed_docids(ix)
    expected, docs = documents.stream(lang, skip)
    added = 0
    if expected > 0:
        writer = _claim(ix, target, lang, expected, procs, notes)
        try:
            with maybe_progress(progress, f"indexing {lang}", expected, "docs") as advance:
                added = write_documents(writer, docs, advance)
        finally:
            (target / BUILDER_FILE).unlink()
    total = ix.doc_count()
    ix.close()
    if fresh:
        shutil.rmtree(path, ignore_errors=True)
        target.rename(path)
    return BuildReport(lang, added, total, time.perf_counter() - started, rebuilt=fresh, notes=notes)


def whoosh_index_stats(lang: str, index_dir=None, source: DocumentSource | None = None) -> IndexStats | None:
    ix = open_index(lang, index_dir)
    if ix is None:
        return None
    path = index_path(lang, index_dir)
    with ix.reader() as reader:
        terms = sum(1 for _ in reader.lexicon("body"))
        tokens = int(reader.field_length("body") + reader.field_length("title"))
        documents = reader.doc_count()
    segments = len(ix._segments())  # Whoosh has no public accessor for this
    ix.close()
    size = sum(f.stat().st_size for f in path.iterdir() if f.is_file())
    stored = None if source is None else source.count(lang)
    return IndexStats(lang.upper(), documents, segments, terms, tokens, size, stored)
