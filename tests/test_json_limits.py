"""Hostile JSON lines: nesting 100,000 deep, 50,000 nested objects, a 100,000-digit integer, a key
given twice, too many keys, a line too long. Each is one PATH:LINE:COLUMN line and exit 1 in `sepia
validate` and `sepia convert`, a problem in a corpus, and a 422 JSON answer from `POST /api/runs`
(never a traceback or an HTML 500); nothing is stored."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from campaign_helpers import schedule
from web_helpers import make_topic

from sepia.cli import main
from sepia.corpus.jsonl import parse_jsonl
from sepia.corpus.sources import Line
from sepia.formats import jsonlines
from sepia.formats.jsonlines import JSONLineError, parse_line
from sepia.store.models import ApiToken, Run, User
from sepia.services.logins import digest

TOPIC = "RAG2025-EN-1"
GOOD = {"metadata": {"team_id": "t", "run_id": "r", "narrative_id": TOPIC}, "references": ["seg_1"],
        "answer": [{"text": "Coal fuelled it.", "citations": [0]}]}
PREFIX = '{"metadata": {"team_id": "t", "run_id": "r", "narrative_id": "' + TOPIC + '"}, '
# Each hostile line, and the column and message of its one problem.
HOSTILE = {
    "deep lists": (PREFIX + '"references": ' + "[" * 100_000 + "]" * 100_000 + "}",
                   len(PREFIX) + 15 + jsonlines.MAX_DEPTH - 1, "nested more than 64 levels deep"),
    "nested objects": ('{"metadata": ' + '{"a": ' * 50_000 + "1" + "}" * 50_001,
                       14 + 6 * (jsonlines.MAX_DEPTH - 1), "nested more than 64 levels deep"),
    "huge integer": (PREFIX + '"references": ["seg_1"], "answer": [{"text": "x", "citations": [' + "9" * 100_000 + "]}]}",
                     len(PREFIX) + 65, "an integer of 100,000 digits; at most 100 are allowed"),
    "duplicate key": (PREFIX + '"metadata": {"team_id": "t", "run_id": "r", "narrative_id": "other"}, '
                      '"references": [], "answer": []}', 1, 'key "metadata" appears twice in one object'),
    "many keys": ("{" + ", ".join(f'"k{i}": {i}' for i in range(1001)) + "}", 1,
                  "an object of 1,001 keys; at most 1,000 are allowed"),
}


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_line_is_one_problem_at_its_column(kind):
    line, column, message = HOSTILE[kind]
    with pytest.raises(JSONLineError) as caught:
        parse_line(line)
    assert (caught.value.column, caught.value.message) == (column, message)


def test_what_is_allowed_still_reads():
    deep = "[" * jsonlines.MAX_DEPTH + "]" * jsonlines.MAX_DEPTH
    assert parse_line(deep) is not None
    long_digits = {"id": "1" * 5000, "x": float("1" * 400 + ".5"), "n": int("9" * 100), "e": 1e300}
    assert parse_line(json.dumps(long_digits)) == long_digits  # digits in strings and floats are no integers
    assert parse_line('{"a": "[[[[{{{{" , "b": "]]"}') == {"a": "[[[[{{{{", "b": "]]"}
    assert parse_line('{"k": {"k": 1}}') == {"k": {"k": 1}}  # one key in two objects is no duplicate


def test_validate_and_convert_print_one_line_and_exit_1(tmp_path):
    for kind, (line, column, message) in HOSTILE.items():
        path = tmp_path / f"{kind.replace(' ', '-')}.jsonl"
        path.write_text(json.dumps(GOOD) + "\n" + line + "\n", encoding="utf-8")
        result = CliRunner().invoke(main, ["validate", "--format", "rag-answers", str(path)])
        assert result.exit_code == 1, (kind, result.output)
        problems = [x for x in result.output.splitlines() if x.startswith(str(path))]
        assert problems == [f"{path}:2:{column}: {message}"], kind
        assert "Traceback" not in result.output and len(result.output.splitlines()) <= 3
        converted = CliRunner().invoke(main, ["convert", "nuggetizer", str(path), "--out", str(tmp_path / "out")])
        assert converted.exit_code == 1 and f"{path}:2:{column}: {message}" in converted.output, kind
        assert "Traceback" not in converted.output


def test_a_line_over_the_limit_is_refused_unread(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_bytes(b'{"id": "1", "title": "' + b"x" * jsonlines.MAX_LINE_BYTES + b'"}\n')
    problems: list = []
    assert list(jsonlines.json_lines(path, problems)) == []
    assert [str(p) for p in problems] == [f"{path}:1:1: line of {jsonlines.MAX_LINE_BYTES + 24:,} bytes; "
                                          f"at most {jsonlines.MAX_LINE_BYTES:,} are allowed"]


def test_a_corpus_line_over_a_limit_is_a_skipped_document():
    line, column, message = HOSTILE["deep lists"]
    lines = [Line(1, line, size=len(line)), Line(2, '{"id": "d2", "text": "fine"}', size=30)]
    found = list(parse_jsonl(iter(lines), "docs.jsonl", 1 << 24))
    assert found[0].message == f"{message} at column {column}; document skipped"
    assert found[1].docid == "d2"


@pytest.mark.parametrize("kind", HOSTILE)
def test_the_api_answers_422_json_and_stores_nothing(app, web_store, kind):
    make_topic(web_store, TOPIC, nuggets=["coal"])
    schedule(web_store, "TREC RAG", [TOPIC], {"cclqa": (-1, 2, None)})
    with web_store.transaction() as session:
        par = session.scalar(select(User).where(User.username == "par"))
        session.add(ApiToken(user_id=par.id, name="x", token_hash=digest("sepia_par")))
    app.testing = False  # a crash would be the server's 500, as in production
    data = (json.dumps(GOOD) + "\n" + HOSTILE[kind][0] + "\n").encode()
    response = app.test_client().post("/api/runs", data=data, headers={"Authorization": "Bearer sepia_par",
                                                                      "X-Filename": "ag.jsonl"})
    assert response.status_code == 422 and response.is_json, response.get_data(as_text=True)[:300]
    assert response.get_json()["problems"] == [f"2:{HOSTILE[kind][1]}: {HOSTILE[kind][2]}"]
    with web_store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Run)) == 0


def test_a_hostile_json_body_is_a_400_not_a_crash(app):
    from web_helpers import browser_for

    org = browser_for(app, "org")
    app.testing = False
    response = org.client.post("/topics/new", data="[" * 100_000, content_type="application/json",
                               headers={"X-CSRFToken": org.token})
    assert response.status_code < 500 and response.is_json
