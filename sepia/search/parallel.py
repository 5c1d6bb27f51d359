"""Document analysis on every core, for the tantivy engine's builds.

Worker processes (fresh interpreters, never forked copies of the building process, so they hold
none of its threads' locks, nor the index writer's) each make their own analyzers (a Sudachi tokenizer is never shared), analyse batches of
titles and bodies and return each document's index terms (`analysed_fields`): title and body as
SEPIA's index terms in position order (`term_sequence`; explicit positions where that form does
not fit), their number, and the body's tokens' offsets (sepia.search.offsets), from the same
analysis. Only the texts go to a worker and only the terms come back: the
building process keeps each batch's documents until their terms arrive and makes the tantivy
documents itself (sepia.search.tantivy_engine.tantivy_document), in the order of the store. At
most a few batches per worker are in flight, so memory stays flat whatever the collection's
size. Workers end with their build (sepia.search.indexer.end_with_parent).

`analyse_only` runs the same workers over the same texts but only counts tokens: the
analyzer-only baseline the build is measured against (tools/bench_search.py).
"""
from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
import traceback
from collections import deque
from contextlib import contextmanager
from typing import IO, Callable, Iterable, Iterator

from sepia.search.analyzers import index_columns, index_sequence, index_units
from sepia.search.offsets import pack_columns
from sepia.search.units import Columns

BATCH_DOCS = 32            # documents per task sent to a worker
IN_FLIGHT_PER_WORKER = 3   # tasks queued or running per worker
PARALLEL_MIN_DOCS = 400    # below this, analysing in the building process is quicker

_worker: dict = {}
# What a worker runs: the building process's sys.path first (so it imports this same SEPIA), then
# `serve_worker` (sepia.search.parallel imports nothing of the building process's __main__).
_BOOT = "import pickle, sys; sys.path[:] = pickle.load(sys.stdin.buffer); " \
        "from sepia.search.parallel import serve_worker; serve_worker()"


def _init(lang: str) -> None:
    from sepia.search.indexer import end_with_parent

    end_with_parent(os.getppid())
    _worker["analysis"] = analysis_of(lang)


def term_sequence(sequence: Callable, text: str) -> tuple[str, int] | None:
    """The text's index terms as one string for tantivy's whitespace tokenizer, and their number:
    the finest units in position order, then the compounds (CJK words that are also indexed as
    their pieces, Sudachi's long units) after them. Phrases are made of finest units only (query
    analysis never yields a compound), so they match exactly where they do with the analyzer's
    positions; a compound is found as a term or by a prefix and counts in the field's length,
    as in Whoosh. None when the terms do not fit this form (a term with white space in it,
    positions with a gap): such a text goes to tantivy with explicit positions (`tokens_of`).
    Measured on JA, this form costs about a tenth of the per-token JSON of `tokens_of`."""
    return joined_terms(sequence(text))


def joined_terms(split: tuple[list[str], list[str]] | None) -> tuple[str, int] | None:
    """`term_sequence` of a text's (finest units, compounds), as the analyzer or
    `split_compounds` gives them."""
    if split is None:
        return None
    terms = split[0] + split[1]
    joined = " ".join(terms)
    # tantivy splits at ASCII white space only; a term holding some cannot go this way
    if joined.count(" ") != len(terms) - 1 or any(c in joined for c in "\t\n\r\x0b\x0c"):
        return None
    return joined, len(terms)


Terms = str | list[tuple[str, int, int, int]]


def _terms(analysis: tuple[Callable, Callable, Callable], text: str) -> tuple[Terms, int]:
    """A title's index terms, and their number: one string (`term_sequence`), or where
    that form does not fit, the analyzer's (term, position, start, end) units."""
    if not text:
        return "", 0
    sequence, units, _columns = analysis
    joined = term_sequence(sequence, text)
    if joined is not None:
        return joined
    found = list(units(text))
    return found, len(found)


def _body_terms(analysis: tuple[Callable, Callable, Callable], text: str) -> tuple[Terms, int, bytes | None]:
    """A body's index terms and their number as `_terms` gives them, and its tokens' offsets
    (sepia.search.offsets.pack_columns), from one pass of the analysis (`index_columns`): marks are
    read from the index, not made by analysing hits again."""
    columns = analysis[2](text) if text else Columns([], [], [], [])
    fine, compounds = columns.fine, columns.compounds
    # nothing fine but compounds: positions with a gap (unit_columns), which only explicit positions keep
    joined = joined_terms((fine, compounds)) if fine or not compounds else None
    terms, count = (column_units(columns), len(fine) + len(compounds)) if joined is None else joined
    return terms, count, pack_columns(columns)


def column_units(columns: Columns) -> list[tuple[str, int, int, int]]:
    """The (term, position, start, end) tokens of `columns`, in position order (for tantivy's
    explicit positions)."""
    fine, compounds, fine_at, compound_at = columns
    units = [(term, i, fine_at[2 * i], fine_at[2 * i + 1]) for i, term in enumerate(fine)]
    units += [(term, compound_at[3 * j], compound_at[3 * j + 1], compound_at[3 * j + 2])
              for j, term in enumerate(compounds)]
    return sorted(units, key=lambda unit: unit[1])


def analysis_of(lang: str) -> tuple[Callable, Callable, Callable]:
    """(index_sequence, index_units, index_columns) of a language: what `analysed_fields` and the
    baseline analyse with."""
    return index_sequence(lang), index_units(lang), index_columns(lang)


Fields = tuple[Terms, Terms, int, bytes | None]


def analysed_fields(analysis: tuple[Callable, Callable, Callable], title: str, body: str) -> Fields:
    """(title terms, body terms, number of tokens of both, the body's token offsets): what a
    tantivy document needs of the analysis (sepia.search.tantivy_engine.tantivy_document)."""
    (title_terms, title_count), (body_terms, body_count, offsets) = _terms(analysis, title), _body_terms(analysis, body)
    return title_terms, body_terms, title_count + body_count, offsets


def document_texts(doc: dict) -> tuple[str, str]:
    """What a worker needs of a document: its title and body."""
    return doc.get("title") or "", doc.get("body") or ""


def _fields_batch(texts: list[tuple[str, str]]) -> list[Fields]:
    analysis = _worker["analysis"]
    return [analysed_fields(analysis, title, body) for title, body in texts]


def _count_batch(texts: list[tuple[str, str]]) -> int:
    """The analysis alone: each title's terms (index_sequence, as a build makes them) and each
    body's tokens with their positions and offsets as the analyzer's unit stream gives them
    (index_units, as Whoosh and snippets read them), results dropped. A build makes the same body
    tokens in one pass without an object per token (index_columns), cheaper than this stream."""
    sequence, units, _columns = _worker["analysis"]
    count = 0
    for title, body in texts:
        split = sequence(title)
        count += sum(1 for _ in units(title)) if split is None else len(split[0]) + len(split[1])
        count += sum(1 for _ in units(body))
    return count


def _batches(docs: Iterable[dict], size: int) -> Iterator[list[dict]]:
    batch = []
    for doc in docs:
        batch.append(doc)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


class WorkerFailed(RuntimeError):
    """An analysis worker raised (its traceback is the message) or ended before its results."""


class _Worker:
    """An analysis worker: a new interpreter (fork and exec, nothing inherited but the pipes), fed
    pickled batches on its stdin, its results pickled back on its stdout. A worker forked from the
    building process, as before, got every lock its other threads held at that moment (tantivy's,
    the sender's, a caller's), held for ever: an idle worker hung so, rarely. multiprocessing's
    spawn and forkserver avoid that too but run the building process's main script again in
    every worker (a script without `if __name__ == "__main__"` would build again)."""

    def __init__(self, lang: str, func):
        self.process = subprocess.Popen([sys.executable, "-c", _BOOT], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.stdout: IO[bytes] = self.process.stdout
        self.send(sys.path)
        self.send((lang, func))

    def send(self, message) -> None:
        pickle.dump(message, self.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        self.stdin.flush()

    def recv(self):
        return pickle.load(self.stdout)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()

    def close(self) -> None:
        """Wait a few seconds for the worker to end, stop it if it has not, close its pipes."""
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            self.process.wait()
        for pipe in (self.stdin, self.stdout):
            try:
                pipe.close()
            except OSError:  # its unsent bytes, to a worker that is gone
                pass


def serve_worker() -> None:
    """A worker process's main: func over each batch of texts received, the result (or the failure,
    as a WorkerFailed) sent back, until None arrives or the building process's end of the pipe
    closes. Its stdout carries only results: anything a library prints goes to stderr."""
    results = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    source = sys.stdin.buffer
    lang, func = pickle.load(source)
    _init(lang)
    try:
        while (texts := pickle.load(source)) is not None:
            try:
                result = func(texts)
            except BaseException:
                result = WorkerFailed(traceback.format_exc())
            pickle.dump(result, results, protocol=pickle.HIGHEST_PROTOCOL)
            results.flush()
    except (EOFError, OSError):  # the building process is gone
        pass


def _send_all(outbox: queue.SimpleQueue, failed: list) -> None:
    """The sending thread: sends each (connection, texts) of `outbox` until None. A send blocks
    while its worker is busy, so the building process goes on reading documents and receiving
    results meanwhile; a worker that ended stops it (the building process learns that on receiving)."""
    while (item := outbox.get()) is not None:
        conn, texts = item
        if failed:
            continue
        try:
            conn.send(texts)
        except (OSError, ValueError) as exc:  # its pipe broken, or closed
            failed.append(exc)


@contextmanager
def _mapped(lang: str, func, docs: Iterable[dict], procs: int, expected: int):
    """func over the titles and bodies of batches of docs, in order, in `procs` worker processes
    (in this one when procs is 1 or the documents are few); yields an iterator over
    (batch, result) pairs.

    Each worker has its own pipe and takes every procs-th batch; results are received in order,
    at most IN_FLIGHT_PER_WORKER batches per worker ahead. A thread sends the texts (a send
    blocks until its worker is free to read); the building process reads the store and receives
    the results itself. A multiprocessing.Pool, used before, cost the building process 0.7-1.3 s
    of CPU more per 20,000 CS documents (its worker handler wakes for every result that waits
    in the pipe; its result handler is one more thread to switch to)."""
    if procs <= 1 or expected < PARALLEL_MIN_DOCS:
        _worker["analysis"] = analysis_of(lang)
        yield ((batch, func([document_texts(d) for d in batch])) for batch in _batches(docs, BATCH_DOCS))
        return
    conns: list[_Worker] = []
    try:
        for _ in range(procs):
            conns.append(_Worker(lang, func))
        outbox: queue.SimpleQueue = queue.SimpleQueue()
        failed: list = []
        sender = threading.Thread(target=_send_all, args=(outbox, failed), name="sepia-analysis-sender",
                                  daemon=True)
        sender.start()

        def receive(conn):
            try:
                result = conn.recv()
            except (EOFError, OSError, pickle.UnpicklingError):  # it ended, or was reset with our batches unread
                raise WorkerFailed("an analysis worker ended before returning its results") from None
            if isinstance(result, WorkerFailed):
                raise result
            return result

        done = []

        def results():
            pending: deque = deque()
            for i, batch in enumerate(_batches(docs, BATCH_DOCS)):
                conn = conns[i % procs]
                outbox.put((conn, [document_texts(d) for d in batch]))
                pending.append((batch, conn))
                if len(pending) >= procs * IN_FLIGHT_PER_WORKER:
                    batch, conn = pending.popleft()
                    yield batch, receive(conn)
            while pending:
                batch, conn = pending.popleft()
                yield batch, receive(conn)
            done.append(True)

        try:
            yield results()
        finally:
            if done:  # every result received: the workers wait for the next batch, and end at None
                for conn in conns:
                    outbox.put((conn, None))
            else:  # a failure: the workers may be busy, or waiting to send results no one will read
                for conn in conns:
                    conn.stop()
            outbox.put(None)
            sender.join()
    finally:
        for conn in conns:
            conn.close()


@contextmanager
def analysed_documents(lang: str, docs: Iterable[dict], procs: int, expected: int):
    """A context whose value iterates over (document, analysed_fields) pairs, in order; the worker
    processes start on entry."""
    with _mapped(lang, _fields_batch, docs, procs, expected) as batches:
        yield (pair for batch, fields in batches for pair in zip(batch, fields))


def analyse_only(lang: str, docs: Iterable[dict], procs: int, expected: int) -> int:
    """Run the analyzer over the documents' titles and bodies on `procs` processes, as a build
    does, and return the number of tokens (nothing else is made or kept)."""
    with _mapped(lang, _count_batch, docs, procs, expected) as counts:
        return sum(count for _batch, count in counts)
