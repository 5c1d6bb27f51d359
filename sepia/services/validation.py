"""What `sepia validate` and `sepia import` share beyond the file formats' own checks: qrels TSVs told
from nugget judgments, and the DOCID lookup that `sepia validate`, `sepia qa` and `sepia import` hand
the file checks: the configured store's collections. A store is opened only when a file cites documents and one exists
(validation never creates one), so checking a file loads no database library otherwise."""
from __future__ import annotations

import os

from sepia import config
from sepia.formats.errors import FormatError, Problem
from sepia.ir4qa import qrels as qrels_tsv

QRELS = "qrels"


def is_qrels(path, format_name: str | None) -> bool:
    """Qrels when told, or a .tsv / .txt file whose header is a qrels header (else judgments)."""
    if format_name is not None or not str(path).endswith((".tsv", ".txt")):
        return format_name == QRELS
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return qrels_tsv.is_qrels_header(handle.readline(4096).rstrip("\r\n"))
    except OSError:
        return False  # the judgments reader says why it cannot be read


def validate_qrels(path) -> tuple[qrels_tsv.QrelsFile | None, list[Problem]]:
    """The qrels file (None when invalid) and every problem, as PATH:LINE:COLUMN."""
    try:
        return qrels_tsv.QrelsFile(qrels_tsv.read_qrels_rows(path)), []
    except FormatError as exc:
        return None, exc.problems


def store_is_configured() -> bool:
    """A store to ask exists already: validation never creates one."""
    if os.environ.get("SEPIA_DATABASE_URL"):
        return True
    return (config.home_path() / "sepia.db").exists()


def missing_in_configured_store(lang: str | None, docids: list[str]) -> set[str]:
    """`sepia.formats.docids.MissingDocuments` over the configured store; nothing without one."""
    if not store_is_configured():
        return set()
    from sepia.services.documents import missing_in  # the store's modules, only when there is one to ask
    from sepia.store.db import Store

    with Store(config.database_url()) as store, store.transaction() as session:
        return missing_in(session)(lang, docids)
