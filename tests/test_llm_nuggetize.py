"""Nugget suggestions: the model's answer read tolerantly (passage numbers or DOCIDs as sources),
`sepia nuggetize` on a stored topic's saved answer texts, and the web nugget screen's "Suggest
nuggets" (suggestions shown, nothing stored until the nugget creator adds one; errors in one line)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from llm_stub import Stub
from sepia.cli import main
from sepia.llm.assessor import served_model
from sepia.llm.nuggetize import Passage, read
from sepia.store.models import AnswerText, Nugget

TOPIC = "SEPIA-CS-0001"
PASSAGES = [("SEPIA_CS_DOC.0001", "2007年10月24日，我国首颗月球探测卫星“嫦娥一号”发射升空。"),
            ("SEPIA_CS_DOC.0002", "卫星的设计寿命为一年。")]
ANSWER = json.dumps({"nuggets": [{"text": "中国首颗月球探测卫星", "sources": [1]},
                                 {"text": "设计寿命 为一年", "sources": ["SEPIA_CS_DOC.0002", 7]},
                                 {"text": "发射于2007年", "sources": []}]}, ensure_ascii=False)


@pytest.fixture(autouse=True)
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("SEPIA_LLM_CACHE", str(tmp_path / "llm-cache"))
    served_model.cache_clear()


def nuggetizing(payload) -> str:
    assert "嫦娥一号" in payload["messages"][-1]["content"] and "[2] (SEPIA_CS_DOC.0002)" in payload["messages"][-1]["content"]
    return f"Here they are:\n```json\n{ANSWER}\n```"


def with_passages(store) -> None:
    """The CS sample's topics and gold in the store, two saved answer texts on one topic."""
    from sepia.formats.read import read_file
    from sepia.resources import resource_dir
    from sepia.store.exchange.gold import import_gold
    from sepia.store.exchange.topics import import_topics

    cs = resource_dir("corpora") / "cs"
    with store.transaction() as session:
        import_topics(session, read_file(cs / "topics.xml"))
        import_gold(session, read_file(cs / "gold.xml"))
        for docid, text in PASSAGES:
            session.add(AnswerText(topic_id=TOPIC, docid=docid, text=text, created_by="dev"))


@pytest.mark.parametrize("text, expected", [
    (ANSWER, [("中国首颗月球探测卫星", ("A",), (0,)), ("设计寿命 为一年", (), ()), ("发射于2007年", (), ())]),
    ('[{"text": "x", "sources": ["[2]", "A"]}, "y", {"text": " "}]', [("x", ("A", "B"), (0, 1)), ("y", (), ())]),
    ('{"facts": "none"}', None),
    ("no JSON", None),
])
def test_suggestions_read_tolerantly(text, expected):
    found = read(text, [Passage("A", "a"), Passage("B", "b")])
    assert (None if found is None else [(s.text, s.docids, s.passages) for s in found]) == expected


def test_nuggetize_command(store, on_store):  # noqa: F811
    with_passages(store)
    with Stub(nuggetizing) as stub:
        result = CliRunner().invoke(main, ["nuggetize", "--topic", TOPIC, "--matcher-option", f"base_url={stub.url}",
                                           "--format", "json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == {TOPIC: [
            {"text": "中国首颗月球探测卫星", "docids": ["SEPIA_CS_DOC.0001"]},
            {"text": "设计寿命 为一年", "docids": ["SEPIA_CS_DOC.0002"]},
            {"text": "发射于2007年", "docids": []}]}
        again = CliRunner().invoke(main, ["nuggetize", "--topic", TOPIC, "--matcher-option", f"base_url={stub.url}"])
        assert again.exit_code == 0 and stub.chats == 1  # the second from the cache
        assert "3 suggested nuggets" in again.stdout and "[SEPIA_CS_DOC.0001]" in again.stdout
        bare = CliRunner().invoke(main, ["nuggetize", "--topic", "SEPIA-CS-0002", "--matcher-option", f"base_url={stub.url}"])
        assert bare.exit_code == 1 and "no saved answer passages" in bare.output
    with store.transaction() as session:
        assert session.query(Nugget).filter_by(topic_id=TOPIC).count() == 7  # the gold's: none added


def test_web_suggestions_are_added_only_by_the_nugget_creator(app, web_store):
    from web_helpers import browser_for

    with_passages(web_store)
    org = browser_for(app, "org")
    assert "Suggest nuggets" not in org.get(f"/nuggets/{TOPIC}").get_data(as_text=True)  # no server set
    with Stub(nuggetizing) as stub:
        app.config["LLM_OPTIONS"] = {"base_url": stub.url}
        assert "Suggest nuggets" in org.get(f"/nuggets/{TOPIC}").get_data(as_text=True)
        page = org.post(f"/nuggets/{TOPIC}/suggest").get_data(as_text=True)
    assert "3 nuggets suggested" in page and page.count('class="nugget suggestion"') == 3
    with web_store.transaction() as session:
        assert session.query(Nugget).filter_by(topic_id=TOPIC).count() == 7
    app.config["LLM_OPTIONS"] = {"base_url": "http://127.0.0.1:9/v1", "retries": "0"}
    response = org.post(f"/nuggets/{TOPIC}/suggest")
    assert response.status_code == 502 and "No suggestions:" in response.get_data(as_text=True)
