"""Hostile files: every kind of problem is listed at most MAX_PROBLEMS times with a count of the rest,
the unknown-DOCID check asks the store in bulk, and nothing a file holds makes validation crash.
How fast this is, is measured by tools/bench_validate_worst.py, not here."""
from __future__ import annotations

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from sepia.formats import schema
from sepia.formats.errors import MAX_PROBLEMS
from sepia.formats.judgments import HEADER
from sepia.formats.validate import validate_file
from sepia.services.documents import CHUNK
from sepia.services.validation import missing_in_configured_store
from sepia.store.db import Store
from sepia.store.models import Document

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<TOPIC_SET>\n'
METADATA = "<METADATA><RUNID>T-CS-CS-01-T</RUNID><DESCRIPTION>d</DESCRIPTION></METADATA>\n"
QUESTIONS = '<QUESTION LANG="CS">问</QUESTION><QUESTION LANG="EN">q</QUESTION>'
JUDGMENTS = "\t".join(HEADER) + "\n"


def validate(tmp_path, content: str, name: str = "f.xml"):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    obj, problems = validate_file(path, missing=missing_in_configured_store)  # as `sepia validate` checks
    return obj, [str(p) for p in problems]


def ir4qa(docids: list[str]) -> str:
    """An IR4QA run ranking these documents, 1,000 per topic."""
    topics = []
    for start in range(0, len(docids), 1000):
        documents = "".join(f'<DOCUMENT RANK="{r}" DOCID="{d}"/>\n'
                            for r, d in enumerate(docids[start:start + 1000], start=1))
        topics.append(f'<TOPIC ID="X-CS-{start}"><IR4QA_RESULT>\n{documents}</IR4QA_RESULT></TOPIC>\n')
    return HEAD + METADATA + "".join(topics) + "</TOPIC_SET>\n"


@pytest.mark.parametrize("newline", ["\n", ""])
def test_repeated_topic_ids_are_listed_up_to_the_cap_with_a_count(tmp_path, newline):
    topics = newline.join([f'<TOPIC ID="X-CS-1">{QUESTIONS}</TOPIC>'] * (MAX_PROBLEMS + 501))
    obj, found = validate(tmp_path, HEAD + topics + "</TOPIC_SET>\n")
    assert obj is None and len(found) == MAX_PROBLEMS + 1
    assert found[-1].endswith(": 500 more problems not shown")
    if not newline:  # all on line 2: each problem points at its own TOPIC
        columns = [int(p.split(":")[2]) for p in found[:3]]
        width = len(f'<TOPIC ID="X-CS-1">{QUESTIONS}</TOPIC>')
        assert columns == [1 + width * i for i in (1, 2, 3)]


def test_repeated_answer_ranks_are_capped(tmp_path):
    answers = "\n".join(['<ANSWER RANK="1"><TEXT>甲</TEXT></ANSWER>'] * (MAX_PROBLEMS // 2 + 5))
    topics = "".join(f'<TOPIC ID="X-CS-{i}"><CCLQA_RESULT>\n{answers}\n</CCLQA_RESULT></TOPIC>\n' for i in (1, 2))
    obj, found = validate(tmp_path, HEAD + METADATA + topics + "</TOPIC_SET>\n")
    assert obj is None and len(found) == MAX_PROBLEMS + 1
    assert "answer rank 1 is repeated" in found[1] and found[-1].endswith(" more problems not shown")


def test_an_element_holds_at_most_max_children_and_only_they_are_schema_checked(tmp_path):
    """Many siblings with schema errors would cost their product (lxml names each error's element by
    counting the siblings before it): what is beyond the limit is reported, not validated."""
    n = schema.MAX_CHILDREN + 500
    answers = "\n".join(f'<ANSWER RANK="{r}" BOGUS="x"><TEXT>甲</TEXT></ANSWER>' for r in range(1, n + 1))
    text = HEAD + METADATA + f'<TOPIC ID="X-CS-1"><CCLQA_RESULT>\n{answers}\n</CCLQA_RESULT></TOPIC>\n</TOPIC_SET>\n'
    obj, found = validate(tmp_path, text)
    first_answer_line = text[:text.index("<ANSWER")].count("\n") + 1
    limit = [p for p in found if "elements in one" in p]
    assert obj is None and len(limit) == 1 and limit[0].endswith(
        f":{first_answer_line + schema.MAX_CHILDREN}:1: {n:,} elements in one CCLQA_RESULT, more than the 1,000 "
        "allowed (of those beyond, only the first of each name not seen before is checked against the schema)")
    bogus = [p for p in found if "BOGUS" in p]  # the first 1,000 answers' only, none beyond the limit
    assert len(bogus) == schema.MAX_CHILDREN and len(found) == schema.MAX_CHILDREN + 1
    assert bogus[-1].split(":")[1] == str(first_answer_line + schema.MAX_CHILDREN - 1)
    # the tree is whole again for the checks after the schema: a rank beyond the limit is still checked
    repeated = text.replace(f'RANK="{n}"', 'RANK="1"')
    assert any("answer rank 1 is repeated" in p for p in validate(tmp_path, repeated.replace(' BOGUS="x"', ""))[1])


def test_groups_after_the_limit_still_count_for_the_content_model(tmp_path):
    """KEY_TERM* then ANSWER_TYPE+: cut after 1,000 key terms, the answer type after them is still
    validated, so the only problem is the limit's (not a missing ANSWER_TYPE)."""
    terms = "".join(f'<KEY_TERM LANG="CS" SCORE="0.5">词{i}</KEY_TERM>\n' for i in range(schema.MAX_CHILDREN + 5))
    text = HEAD + METADATA + (f'<TOPIC ID="X-CS-1"><QUESTION_ANALYSIS>\n{terms}<ANSWER_TYPE SCORE="1">PERSON'
                              "</ANSWER_TYPE></QUESTION_ANALYSIS></TOPIC>\n</TOPIC_SET>\n")
    obj, found = validate(tmp_path, text)
    assert obj is None and len(found) == 1 and "1,006 elements in one QUESTION_ANALYSIS" in found[0]
    broken = text.replace('<ANSWER_TYPE SCORE="1">', '<ANSWER_TYPE SCORE="x">')
    assert any("'SCORE'" in p for p in validate(tmp_path, broken)[1])  # and its own problems are found


def test_judgment_problems_are_capped(tmp_path):
    obj, found = validate(tmp_path, JUDGMENTS + "X-CS-1\tR\t1\tN1\t1\ta\n" * (MAX_PROBLEMS + 3), "j.tsv")
    assert obj is None and len(found) == MAX_PROBLEMS + 1
    assert found[-1].endswith(":1: 2 more problems not shown")


BOGUS = ' BOGUS="1"'


def test_schema_problems_of_many_topics_are_the_same_when_validated_a_window_at_a_time(tmp_path, monkeypatch):
    topics = [f'<TOPIC ID="X-CS-{i}"{BOGUS if i % 37 == 0 else ""}>{QUESTIONS}</TOPIC>\n'
              for i in range(3 * schema.WINDOW + 10)]
    topics[150] = '<TOPIC ID="X-CS-150"><FOO/></TOPIC>\n'
    content = HEAD.replace("<TOPIC_SET>", '<TOPIC_SET LANG="CS" X="1">') + "".join(topics) + "</TOPIC_SET>\n"
    windowed = validate(tmp_path, content)[1]
    monkeypatch.setattr(schema, "WINDOW", 10**9)
    assert windowed == validate(tmp_path, content)[1]
    assert len(windowed) == 1 + 9 + 1 and any(":153:" in p and "FOO" in p for p in windowed)
    run = HEAD + METADATA + "".join(f'<TOPIC ID="X-CS-{i}"><IR4QA_RESULT/></TOPIC>\n' for i in range(250))
    obj, found = validate(tmp_path, run + "</TOPIC_SET>\n")
    assert found == [] and [t.topic_id for t in obj.topics] == [f"X-CS-{i}" for i in range(250)]


@pytest.mark.parametrize("content, message", [
    (HEAD + METADATA + '<TOPIC ID="X-CS-1"><CCLQA_RESULT><ANSWER RANK="' + "9" * 5000
     + '"><TEXT>a</TEXT></ANSWER></CCLQA_RESULT></TOPIC></TOPIC_SET>', "maxInclusive"),
    (JUDGMENTS + "X-CS-1\tR\t²\tN1\t1\ta\n", "answer_rank must be a positive integer"),
    (JUDGMENTS + f"X-CS-1\tR\t{'9' * 5000}\tN1\t1\ta\n", "answer_rank must be a positive integer"),
    (JUDGMENTS + "X-CS-1\tR\t2147483648\tN1\t1\ta\n", "answer_rank must be a positive integer"),
])
def test_huge_or_odd_numbers_are_problems_not_crashes(tmp_path, content, message):
    obj, found = validate(tmp_path, content, "j.tsv" if content.startswith("topic_id") else "f.xml")
    assert obj is None and any(message in p for p in found), found


@pytest.fixture
def store_with_collection(store_url, monkeypatch):
    """The store `sepia validate` consults, holding a small CS collection."""
    store = Store(store_url)
    with store.transaction() as session:
        session.add_all(Document(docid=f"D{i}", lang="CS", title="", text="文") for i in range(1, 4))
    store.dispose()
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)


def test_unknown_docid_warnings_are_capped(tmp_path, store_with_collection):
    obj, found = validate(tmp_path, ir4qa(["D1"] + [f"NOPE-{i}" for i in range(MAX_PROBLEMS + 200)]),
                          "T-CS-CS-01-T.xml")
    assert obj is not None and len(found) == MAX_PROBLEMS + 1
    assert found[0].endswith(":6:27: warning: document NOPE-0 is not in the CS collection")
    assert found[-1].endswith(": warning: 200 more unknown documents not shown")


def test_the_docid_check_asks_in_chunks_not_per_docid(tmp_path, store_with_collection):
    def document_queries(count: int) -> int:
        statements = []

        def record(_connection, _cursor, statement, *_args):
            statements.append(statement)

        event.listen(Engine, "before_cursor_execute", record)
        try:
            assert validate(tmp_path, ir4qa([f"NOPE-{i}" for i in range(count)]), "T-CS-CS-01-T.xml")[0]
        finally:
            event.remove(Engine, "before_cursor_execute", record)
        return sum("FROM document" in s for s in statements)

    one = document_queries(1)
    assert document_queries(CHUNK) == one
    assert document_queries(3 * CHUNK) == one + 2
