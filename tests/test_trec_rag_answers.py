"""TREC RAG AG/RAG answer files: the track's rules checked with PATH:LINE:COLUMN messages, then one
CCLQA run whose responses are the answer sentences and whose DOCIDs are their cited segments."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from campaign_helpers import schedule
from web_helpers import browser_for, make_topic

from sepia.cli import main
from sepia.convert.rag_answers import convert_rag_answers
from sepia.convert.rag_topics import convert_rag_topics, track_topic_ids
from sepia.formats.errors import FormatError
from sepia.formats.model import CCLQARun
from sepia.formats.read import read_file
from sepia.store.models import Response, ResponseDocument, Run, RunTopic, Submission
from sepia.web.downloads import run_file_name

SEG = [f"msmarco_v2.1_doc_0{i}_1{i}#{i}_2{i}" for i in range(4)]
TOPIC_IDS = {"1": "RAG2025-EN-1", "2": "RAG2025-EN-2"}


def answer(qid, sentences, run_id="my run", team="my-team", references=SEG, key="narrative_id", **extra):
    return {"metadata": {"team_id": team, "run_id": run_id, "type": "automatic", key: qid, "narrative": "n"},
            "references": references, "answer": [{"text": t, "citations": c} for t, c in sentences], **extra}


GOOD = [answer("1", [("Coal fuelled it.", [0, 2]), ("Steam engines too.", [SEG[3]])]),
        answer(2, [("Prisons vary.", [])], key="topic_id", response_length=2)]


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_sentences_become_responses_with_their_citations(tmp_path):
    conv = convert_rag_answers(write_jsonl(tmp_path / "ag.jsonl", GOOD), TOPIC_IDS)
    assert conv.original_run_id == "my run" and conv.run.run_id == "my_team-EN-EN-01-T"
    assert [(t.topic_id, [(a.rank, a.text, a.docids) for a in t.answers]) for t in conv.run.topics] == [
        ("RAG2025-EN-1", [(1, "Coal fuelled it.", [SEG[0], SEG[2]]), (2, "Steam engines too.", [SEG[3]])]),
        ("RAG2025-EN-2", [(1, "Prisons vary.", [])])]
    assert convert_rag_answers(tmp_path / "ag.jsonl", TOPIC_IDS, team="TEAMX", priority=3).run.run_id == "TEAMX-EN-EN-03-T"


def test_every_broken_rule_is_reported_and_nothing_converted(tmp_path):
    words = [("word " * 200, []), ("word " * 201, [])]
    lines = [GOOD[0],
             answer("2", [("x", [4]), ("y", [-1]), ("z", ["other#1"]), ("w", [True])]),
             answer("2", words),
             answer("1", [("again", [])]),
             answer("9", [("unknown topic", [])]),
             answer("2", [("other run", [])], run_id="run B"),
             answer("2", [("too many", [])], references=[f"s#{i}" for i in range(101)]),
             {"metadata": {"run_id": "my run"}, "references": "s#1", "answer": [{"citations": []}], "response_length": -1},
             '{"metadata": ']
    path = write_jsonl(tmp_path / "bad.jsonl", lines)
    with pytest.raises(FormatError) as info:
        convert_rag_answers(path, TOPIC_IDS)
    found = [(p.line, p.column, p.message) for p in info.value.problems]
    assert all(p.path == str(path) for p in info.value.problems)
    assert found == [
        (2, 1, "answer sentence 0: citation 4 is not an index into the 4 references"),
        (2, 1, "answer sentence 1: citation -1 is not an index into the 4 references"),
        (2, 1, "answer sentence 2: citation 'other#1' is not among the references"),
        (2, 1, "answer sentence 3: a citation must be an index or a segment ID, got a boolean"),
        (3, 1, "the answer has 401 words; at most 400 are allowed"),
        (4, 1, "topic '1' already answered on line 1"),
        (5, 1, "topic '9' is not among the campaign's topics (topics.tsv)"),
        (6, 1, "run 'run B' differs from 'my run' on line 1: one run a file"),
        (7, 1, "101 references; at most 100 are allowed"),
        (8, 1, "answer sentence 0: must be an object with a string 'text'"),  # a line's problems in order
        (8, 1, "field 'references' must be a list of segment IDs"),
        (8, 1, "field 'response_length' must be a whole number"),
        (8, 1, "metadata: 'narrative_id' (or 2024's 'topic_id') must be a non-empty string"),
        (8, 1, "metadata: 'team_id' must be a non-empty string"),
        (9, 14, "not valid JSON: Expecting value")]
    out = tmp_path / "run.xml"
    result = CliRunner().invoke(main, ["convert", "rag-answers", str(path), "--topics-map", str(topics_tsv(tmp_path)),
                                       "--out", str(out)])
    assert result.exit_code == 1 and f"{path}:7:1: 101 references; at most 100 are allowed" in result.output
    assert not out.exists() and not list(tmp_path.glob("run.xml.*"))


def test_exactly_400_words_pass_and_a_bad_team_is_refused(tmp_path):
    path = write_jsonl(tmp_path / "ag.jsonl", [answer("1", [("word " * 399, []), ("end", [1])])])
    assert sum(len(a.text.split()) for a in convert_rag_answers(path, TOPIC_IDS).run.topics[0].answers) == 400
    with pytest.raises(FormatError, match="is not a run ID"):
        convert_rag_answers(path, TOPIC_IDS, team="a-b")
    with pytest.raises(FormatError, match="no answers"):
        convert_rag_answers(write_jsonl(tmp_path / "empty.jsonl", []), TOPIC_IDS)


def topics_tsv(tmp_path) -> Path:
    path = tmp_path / "topics.tsv"
    path.write_text("qid\ttopic_id\n" + "".join(f"{k}\t{v}\n" for k, v in TOPIC_IDS.items()))
    return path


def test_converted_run_is_uploaded_and_stored_sentence_by_sentence(app, web_store, tmp_path):  # noqa: F811
    for topic_id in TOPIC_IDS.values():
        make_topic(web_store, topic_id, nuggets=["coal"])
    schedule(web_store, "TREC RAG", list(TOPIC_IDS.values()), {"cclqa": (-1, 2, None)})
    out = tmp_path / "TEAMX-EN-EN-01-T.xml"
    result = CliRunner().invoke(main, ["convert", "rag-answers", str(write_jsonl(tmp_path / "ag.jsonl", GOOD)),
                                       "--topics-map", str(topics_tsv(tmp_path)), "--team", "TEAMX", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "run TEAMX-EN-EN-01-T (my run), 2 topics, 3 answer sentences" in result.output
    assert isinstance(read_file(out, "cclqa"), CCLQARun)
    par = browser_for(app, "par")
    response = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(out.read_bytes()), out.name)},
                               content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)
    with web_store.transaction() as session:
        rows = session.execute(select(RunTopic.topic_id, Response.rank, Response.text, Response.id)
                               .join(Run).join(Response).where(Run.run_id == "TEAMX-EN-EN-01-T")
                               .order_by(RunTopic.position, Response.rank)).all()
        cited = {rid: session.scalars(select(ResponseDocument.docid).where(ResponseDocument.response_id == rid)
                                      .order_by(ResponseDocument.position)).all() for *_, rid in rows}
    assert [(t, r, x, cited[i]) for t, r, x, i in rows] == [
        ("RAG2025-EN-1", 1, "Coal fuelled it.", [SEG[0], SEG[2]]), ("RAG2025-EN-1", 2, "Steam engines too.", [SEG[3]]),
        ("RAG2025-EN-2", 1, "Prisons vary.", [])]


def stored_runs(store):
    with store.transaction() as session:
        return sorted(session.execute(select(Run.run_id, Run.description).where(Run.kind == "cclqa")).all())


def test_an_answer_file_is_uploaded_as_it_is(app, web_store, tmp_path):  # noqa: F811
    """With SEPIA's topic IDs as narrative_id, the JSONL file itself goes through the web tool and the API."""
    for topic_id in TOPIC_IDS.values():
        make_topic(web_store, topic_id, nuggets=["coal"])
    schedule(web_store, "TREC RAG", list(TOPIC_IDS.values()), {"cclqa": (-1, 2, None)})
    own_ids = [answer(TOPIC_IDS["1"], [("Coal fuelled it.", [0, 2])]), answer(TOPIC_IDS["2"], [("Prisons vary.", [])])]
    data = "".join(json.dumps(r) + "\n" for r in own_ids).encode()
    par = browser_for(app, "par")

    def upload(data, name="ag.jsonl"):
        return par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(data), name)},
                               content_type="multipart/form-data")

    assert upload(data).status_code == 302
    assert stored_runs(web_store) == [("TEAMX-EN-EN-01-T", "TREC RAG run my run")]
    other = data.replace(b'"my run"', b'"second"')
    assert upload(other).status_code == 302
    assert upload(data.replace(b"Coal fuelled it.", b"Coal did it.")).status_code == 302  # my run again: replaces 01
    assert stored_runs(web_store) == [("TEAMX-EN-EN-01-T", "TREC RAG run my run"), ("TEAMX-EN-EN-02-T", "TREC RAG run second")]
    with web_store.transaction() as session:
        texts = session.scalars(select(Response.text).join(RunTopic).join(Run)
                                .where(Run.run_id == "TEAMX-EN-EN-01-T").order_by(RunTopic.position)).all()
    assert texts == ["Coal did it.", "Prisons vary."]
    broken = data.replace(b"[0, 2]", b"[0, 9]")
    response = upload(broken)
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "ag.jsonl:1:1: answer sentence 0: citation 9 is not an index into the 4 references" in page
    unknown = data.replace(TOPIC_IDS["2"].encode(), b"RAG2025-EN-9")
    assert upload(unknown).status_code == 422
    assert len(stored_runs(web_store)) == 2  # nothing stored from either
    with web_store.transaction() as session:  # the team's submission keeps the file as sent, downloaded as .jsonl
        current = session.scalar(select(Submission).where(Submission.run_id == "TEAMX-EN-EN-01-T",
                                                          Submission.superseded_at.is_(None)))
        assert current.content == data.replace(b"Coal fuelled it.", b"Coal did it.")
        assert run_file_name(current.run_id, current.content) == "TEAMX-EN-EN-01-T.jsonl"
    assert run_file_name("X-EN-EN-01-T", b"<?xml version='1.0'?><TOPIC_SET/>") == "X-EN-EN-01-T.xml"


def test_track_ids_are_known_from_the_names_rag_topics_gave(tmp_path):
    stored = ["RAG2025-EN-1", "RAG2025-EN-2", "RAG2024-EN-2", "RAG2024-EN-145979", "RAG-EN-0001", "RAGx-EN-3", "T-EN-9"]
    assert track_topic_ids(stored) == {
        "2025-1": "RAG2025-EN-1", "2025-2": "RAG2025-EN-2", "2024-2": "RAG2024-EN-2",
        "2024-145979": "RAG2024-EN-145979", "x-3": "RAGx-EN-3",
        "1": "RAG2025-EN-1", "145979": "RAG2024-EN-145979"}  # 2 is two topics' number; x is no year
    converted = convert_rag_topics(write_jsonl(tmp_path / "t.jsonl", [{"id": 7, "title": "A narrative."}]), year="2025")
    assert track_topic_ids(converted.topic_ids.values()) == {"7": "RAG2025-EN-7", "2025-7": "RAG2025-EN-7"}


def test_an_answer_file_in_the_tracks_topic_ids_is_mapped(app, web_store):  # noqa: F811
    """narrative_id 1 and 2024's topic_id 2 are the topics rag-topics named RAG2025-EN-1 and -2."""
    for topic_id in TOPIC_IDS.values():
        make_topic(web_store, topic_id, nuggets=["coal"])
    schedule(web_store, "TREC RAG", list(TOPIC_IDS.values()), {"cclqa": (-1, 2, None)})
    par = browser_for(app, "par")

    def upload(rows):
        data = "".join(json.dumps(r) + "\n" for r in rows).encode()
        response = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(data), "ag.jsonl")},
                                   content_type="multipart/form-data")
        return response.status_code, response.get_data(as_text=True)

    twice = [GOOD[0], answer("RAG2025-EN-1", [("Again.", [])])]
    status, page = upload(twice)
    assert status == 422 and "ag.jsonl:2:1: topic &#39;RAG2025-EN-1&#39; already answered on line 1" in page
    status, page = upload([GOOD[0], answer("9", [("Elsewhere.", [])])])
    assert status == 422 and ("ag.jsonl:2:1: topic &#39;9&#39; is not among the campaign&#39;s topics "
                              "(by SEPIA&#39;s topic ID or the track&#39;s)") in page
    assert stored_runs(web_store) == []
    assert upload(GOOD)[0] == 302
    with web_store.transaction() as session:
        rows = session.execute(select(RunTopic.topic_id, Response.text).join(Run).join(Response)
                               .order_by(RunTopic.position, Response.rank)).all()
    assert [tuple(r) for r in rows] == [("RAG2025-EN-1", "Coal fuelled it."), ("RAG2025-EN-1", "Steam engines too."),
                                        ("RAG2025-EN-2", "Prisons vary.")]


def test_numbered_topics_keep_the_refusal(app, web_store):  # noqa: F811
    """Topics numbered RAG-EN-0001 (the track's IDs were not of a year) carry no track ID to map."""
    make_topic(web_store, "RAG-EN-0001", nuggets=["coal"])
    schedule(web_store, "TREC RAG", ["RAG-EN-0001"], {"cclqa": (-1, 2, None)})
    par = browser_for(app, "par")
    data = (json.dumps(answer("1", [("Coal.", [0])])) + "\n").encode()
    response = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(data), "ag.jsonl")},
                               content_type="multipart/form-data")
    assert response.status_code == 422 and "ag.jsonl:1:1: topic &#39;1&#39; is not among" in response.get_data(as_text=True)


def test_the_campaigns_topics_map_track_ids_on_each_backend(store_url):
    """answer_file_xml reads the campaign's topic IDs from the store (SQLite and PostgreSQL)."""
    from sepia.campaign.rag_upload import answer_file_xml
    from sepia.formats.read import read_bytes
    from sepia.store.db import Store

    backend = Store(store_url)
    try:
        for topic_id in [*TOPIC_IDS.values(), "RAG2024-EN-145979", "RAG-EN-0001"]:
            make_topic(backend, topic_id)
        rows = [answer("1", [("One.", [0])]), answer("2024-145979", [("Two.", [1])]),
                answer("RAG-EN-0001", [("Three.", [])])]
        data = "".join(json.dumps(r) + "\n" for r in rows).encode()
        with backend.transaction() as session:
            run = read_bytes(answer_file_xml(session, "TEAMX", "ag.jsonl", data)[0], "cclqa")
        assert [t.topic_id for t in run.topics] == ["RAG2025-EN-1", "RAG2024-EN-145979", "RAG-EN-0001"]
    finally:
        backend.dispose()


def test_an_answer_file_of_another_team_id_is_stored_as_the_uploaders_and_its_receipt_says_so(app, web_store):  # noqa: F811
    """The track's team_id is often not the team's SEPIA name: the run is the uploader's team's, and the
    receipt (page and API) says what the file was stored as; a team_id that is the team's name says nothing."""
    for topic_id in TOPIC_IDS.values():
        make_topic(web_store, topic_id, nuggets=["coal"])
    schedule(web_store, "TREC RAG", list(TOPIC_IDS.values()), {"cclqa": (-1, 2, None)})
    rows = [answer(TOPIC_IDS["1"], [("Coal fuelled it.", [0])], team="ragteam", run_id="rt-1")]
    par = browser_for(app, "par")
    page = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(
        "".join(json.dumps(r) + "\n" for r in rows).encode()), "ag.jsonl")}, content_type="multipart/form-data",
        follow_redirects=True).get_data(as_text=True)
    said = ("The file&#39;s team_id &#39;ragteam&#39; is not your team: stored as team TEAMX&#39;s run "
            "TEAMX-EN-EN-01-T (its run_id &#39;rt-1&#39; kept in the description).")
    assert "Receipt" in page and f"ag.jsonl: {said}" in page, page
    assert stored_runs(web_store) == [("TEAMX-EN-EN-01-T", "TREC RAG run rt-1")]
    token = re.search(r'<code id="new-token" class="token">([^<]+)</code>',
                      par.post("/me/tokens", {"name": "cli"}).get_data(as_text=True)).group(1)
    for team, note in (("ragteam", True), ("teamx", False)):
        data = json.dumps(answer(TOPIC_IDS["2"], [("Prisons vary.", [])], team=team, run_id=f"api-{team}")) + "\n"
        response = app.test_client().post("/api/runs", data=data.encode(), headers={
            "Authorization": f"Bearer {token}", "X-Filename": "ag.jsonl"}, content_type="application/json")
        assert response.status_code == 201, response.get_json()
        warnings = response.get_json()["receipt"]["warnings"]
        assert any("team_id 'ragteam' is not your team: stored as team TEAMX's run" in w for w in warnings) == note
