"""Runs read window by window and imported in batches (issue 20, item 3): the same objects, problems
and stored rows as the whole-tree reading and the ORM's import, without the whole tree or an object a row."""
from __future__ import annotations

import pytest
from sqlalchemy import event, func, select

from sepia.formats import model, stream
from sepia.formats.errors import FormatError
from sepia.formats.checks import Checks
from sepia.formats.read import read_bytes, read_loaded
from sepia.formats.registry import detect_format, named, run_kind
from sepia.formats.write import to_xml
from sepia.formats.xmlsafe import parse_xml
from sepia.store import bulk
from sepia.store.exchange.runs import export_run, import_run
from sepia.store import models as db

NAME = "TEAM-CS-CS-01-T.xml"


def ir4qa(topics=7, docs=6):
    return model.IR4QARun(model.Metadata("TEAM-CS-CS-01-T", "d"), [
        model.IR4QATopic(f"ACLIA2-CS-{t:04d}", [model.RetrievedDoc(r, f"XIN_{t}.{r}", 1.0 / r if r % 3 else None)
                                                for r in range(1, docs + 1)])
        for t in range(1, topics + 1)])


def cclqa():
    return model.CCLQARun(model.Metadata("TEAM-CS-CS-01-T", "d", "TEAM-CS-CS-01-T"), [
        model.CCLQATopic(f"ACLIA2-CS-{t:04d}", [model.Answer(r, f"答案{t}.{r} 𠀀", [f"D{t}{r}", f"E{r}"][:r])
                                                for r in range(1, 4)])
        for t in range(1, 6)])


def qa():
    return model.QARun(model.Metadata("TEAM-CS-CS-01-T", "d"), [
        model.QATopic(f"ACLIA2-CS-{t:04d}", [model.KeyTerm("禽流感", "CS", 0.5), model.KeyTerm("flu", "EN", None)],
                      [model.AnswerTypeScore("DEFINITION", 0.9), model.AnswerTypeScore("PERSON", None)])
        for t in range(1, 5)])


def whole_tree(data: bytes):
    """The reading every file had before: the whole tree, the general reader."""
    loaded = parse_xml(data, NAME)
    checks = Checks(loaded)
    return named(detect_format(loaded.root)).read(checks, loaded.root), checks.problems


@pytest.mark.parametrize("run", [ir4qa(), cclqa(), qa()], ids=["ir4qa", "cclqa", "qa"])
@pytest.mark.parametrize("window", [1, 4, 10_000])
def test_a_valid_run_read_in_windows_is_the_run_read_whole(run, window, monkeypatch):
    monkeypatch.setattr(stream, "WINDOW_ELEMENTS", window)
    data = to_xml(run)
    loaded = parse_xml(data, NAME)
    assert read_loaded(loaded) == (run, []) and whole_tree(data) == (run, [])
    assert "root" not in loaded.__dict__  # the whole tree was never built


@pytest.mark.parametrize("break_it, message", [
    (lambda x: x.replace(b'ID="ACLIA2-CS-0006"', b'ID="ACLIA2-CS-0001"'), "topic ACLIA2-CS-0001 appears more than once"),
    (lambda x: x.replace(b"</TOPIC>\n  <TOPIC ID=\"ACLIA2-CS-0005\"", b"</TOPIC><EXTRA/>\n  <TOPIC ID=\"ACLIA2-CS-0005\""),
     "Element 'EXTRA'"),
    (lambda x: x.replace(b'RANK="2" DOCID="XIN_6.2"', b'RANK="1" DOCID="XIN_6.2"'), "rank 1 is repeated"),
    (lambda x: x.replace(b'DOCID="XIN_7.3"', b'DOCID="XIN_7.2"'), "document XIN_7.2 is ranked twice"),
    (lambda x: x.replace(b'RANK="3" DOCID="XIN_7.3"', b'RANK="x" DOCID="XIN_7.3"'), "'x' is not a valid value"),
    (lambda x: x[:-30], "not well-formed"),
])
def test_a_problem_in_a_late_window_is_reported_as_the_whole_reading_reports_it(break_it, message, monkeypatch):
    monkeypatch.setattr(stream, "WINDOW_ELEMENTS", 4)
    data = break_it(to_xml(ir4qa()))
    assert data != to_xml(ir4qa())
    with pytest.raises(FormatError) as streamed:
        read_bytes(data, name=NAME)
    assert message in str(streamed.value)
    monkeypatch.setattr(stream, "read_clean_run", lambda *_args: None)  # as before: whole tree only
    with pytest.raises(FormatError) as whole:
        read_bytes(data, name=NAME)
    assert streamed.value.problems == whole.value.problems


def test_shuffled_ranks_are_read_as_they_were():
    data = to_xml(ir4qa(topics=1, docs=3)).replace(b'RANK="1"', b'RANK="9"').replace(b'RANK="3"', b'RANK="1"')
    data = data.replace(b'RANK="9"', b'RANK="3"')
    run = read_bytes(data, name=NAME)
    assert [(d.rank, d.docid) for d in run.topics[0].documents] == [(3, "XIN_1.1"), (2, "XIN_1.2"), (1, "XIN_1.3")]
    assert run == whole_tree(data)[0]


# ---------------------------------------------------------------- import in batches, both databases

@pytest.mark.parametrize("run", [ir4qa(topics=5, docs=7), cclqa(), qa()], ids=["ir4qa", "cclqa", "qa"])
def test_a_run_is_imported_in_batches_without_an_object_a_row_and_exported_the_same(store, run, monkeypatch):
    monkeypatch.setattr(bulk, "BATCH", 3)
    with store.transaction() as session:
        row = import_run(session, run)
        assert list(session.identity_map.values()) == [row]  # the run's row; not an object a document or answer
    with store.transaction() as session:
        assert export_run(session, run.metadata.run_id, run_kind(run)) == run


def test_replacing_a_run_removes_every_row_of_the_old_one(store):
    old, new = ir4qa(topics=4, docs=9), ir4qa(topics=2, docs=3)
    with store.transaction() as session:
        import_run(session, old)
    with store.transaction() as session:
        import_run(session, new, replace=True)
    with store.transaction() as session:
        assert export_run(session, "TEAM-CS-CS-01-T", "ir4qa") == new
        assert session.scalar(select(func.count()).select_from(db.RetrievedDocument)) == 6
        assert session.scalar(select(func.count()).select_from(db.RunTopic)) == 2


def test_a_file_is_told_its_own_syntax_problems_not_those_of_files_parsed_before():
    data = to_xml(ir4qa())[:-30]
    told = []
    for _ in range(3):
        with pytest.raises(FormatError) as error:
            read_bytes(data, name=NAME)
        told.append(error.value.problems)
    assert told[0] == told[1] == told[2] and len(told[0]) == 2


def test_a_run_file_is_kept_byte_for_byte_written_in_pieces(store, monkeypatch):
    """On SQLite the bytes go into room made for them (zeroblob), a piece at a time: submission.content
    is the row's last column (migration 0010), or SQLite would build the whole record in memory. On
    PostgreSQL they go a piece at a time by a binary COPY (psycopg copied them whole when bound)."""
    from sepia.campaign.submission import import_run_file

    monkeypatch.setattr(bulk, "BLOB_CHUNK", 7)
    run = ir4qa(topics=3, docs=5)
    data = to_xml(run) + "<!-- 𠀀 -->\n".encode() * 3
    bound = []  # the size of every bytes value SQLAlchemy hands the driver (psycopg's wrapped in a Binary)

    def note(_conn, _cursor, _statement, parameters, _context, _executemany):
        rows = parameters if isinstance(parameters, list) else [parameters]
        values = (getattr(v, "obj", v) for row in rows for v in (row.values() if isinstance(row, dict) else row))
        bound.extend(len(v) for v in values if isinstance(v, bytes))

    event.listen(store.engine, "before_cursor_execute", note)
    try:
        with store.transaction() as session:
            import_run_file(session, run, NAME, data, replace=False)
    finally:
        event.remove(store.engine, "before_cursor_execute", note)
    assert max(bound, default=0) < len(data)  # never bound whole
    with store.transaction() as session:
        assert session.scalars(select(db.Submission.content)).all() == [data]
    if store.engine.dialect.name == "sqlite":
        with store.engine.connect() as connection:
            columns = [row[1] for row in connection.exec_driver_sql("PRAGMA table_info(submission)")]
        assert columns[-1] == "content"
