"""--matcher llm against a chat-completions stub on 127.0.0.1 (tests/llm_stub.py): replies valid,
malformed, wrapped in prose, of the wrong count; HTTP 429 and 500; time-outs and slow answers; the
cache; bad configuration refused in one line before scoring; and the TREC RAG 2024 assignments
replayed through the stub score exactly as `--auto-judgments` scores the same file."""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from llm_stub import MODEL, Reply, Stub, all_support, asked, labels
from sepia.cli import main
from sepia.formats.read import read_file
from sepia.scoring.evaluate import evaluate_runs
from sepia.llm import labels as parsing
from sepia.llm.assessor import Assessor, Config, Item, served_model
from sepia.llm.client import LLMError

ROOT = Path(__file__).resolve().parents[1]
CS = ROOT / "corpora" / "cs"
RAG24 = ROOT.parent / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"


@pytest.fixture(autouse=True)
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("SEPIA_LLM_CACHE", str(tmp_path / "llm-cache"))
    served_model.cache_clear()  # each test's stub is a new server


def options(stub: Stub, **more) -> list[str]:
    given = {"base_url": stub.url, "backoff": "0.01", **more}
    return [a for k, v in given.items() for a in ("--matcher-option", f"{k}={v}")]


def evaluate_cs(*more: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                       "--matcher", "llm", "--format", "json", *more])
    return result.exit_code, result.stdout, result.stderr


def in_text(payload: dict) -> str:
    """A rule the 'model' follows: support when the nugget's first four characters are in the passage."""
    passage, nuggets = asked(payload)
    return labels(*["support" if n[:4] in passage else "not_support" for n in nuggets])


def test_a_model_swapped_under_its_name_is_found_before_replies_of_two_models_are_mixed(tmp_path):
    with Stub(in_text) as stub:
        assert evaluate_cs(*options(stub))[0] == 0
        (kept,) = (tmp_path / "llm-cache" / "servers").glob("*.json")
        served = json.loads(kept.read_text(encoding="utf-8"))
        kept.write_text(json.dumps({**served, "identity": "another build of the model"}), encoding="utf-8")
        served_model.cache_clear()
        stub.requests.clear()
        code, _, err = evaluate_cs(*options(stub))  # no reply is kept for that identity: the server is asked
        assert code == 1 and "now serves another" in err and len(err.strip().splitlines()) == 1
        assert stub.chats == 0 and json.loads(kept.read_text(encoding="utf-8")) == served
        served_model.cache_clear()
        stub.requests.clear()
        assert evaluate_cs(*options(stub))[0] == 0 and stub.requests == {}  # the replies kept for the model served


# --- reading the model's answer ---

@pytest.mark.parametrize("text, count, expected", [
    ('{"labels": ["support", "partial_support", "not_support"]}', 3, ["support", "partial_support", "not_support"]),
    ('Sure! Here you go:\n```json\n{"labels": ["Supported", "partial"]}\n```\nHope it helps.', 2,
     ["support", "partial_support"]),
    ('The labels are ["support", "not support"] as asked.', 2, ["support", "not_support"]),
    ('[{"label": "partial-support"}, {"assignment": "NOT_SUPPORT"}]', 2, ["partial_support", "not_support"]),
    ('{"labels": ["support"]}', 2, None),                    # wrong count
    ('{"labels": ["support", "maybe"]}', 2, None),           # a label that means nothing
    ("support, support", 2, None),                           # no JSON at all
    ('{"answer": "yes"}', 1, None),
    ("", 1, None),
])
def test_tolerant_parser(text, count, expected):
    assert parsing.parse(text, count) == expected


# --- scoring through the stub ---

def test_scores_are_the_stubs_decisions_and_a_warm_cache_asks_nothing():
    gold = read_file(CS / "gold.xml", "gold")
    runs = [read_file(p, "cclqa") for p in sorted((CS / "runs").glob("*.xml"))]
    with Stub(in_text) as stub:
        code, first, err = evaluate_cs(*options(stub))
        asked_first = stub.chats
        stub.requests.clear()
        served_model.cache_clear()  # as a new process would
        again, second, err_again = evaluate_cs(*options(stub))
        assert again == 0 and stub.requests == {}  # not even which model is served: the cache kept that too
    assert second == first  # a rerun: every reply from the cache, the same bytes out
    assert "0 requests" in err_again
    assert code == 0, err
    # the same rule applied by hand, as judgments scored by the human matcher
    from sepia.formats.model import Judgment
    judgments = []
    for run in runs:
        for topic in run.topics:
            nuggets = next((t.nuggets for t in gold.topics if t.topic_id == topic.topic_id), [])
            passage = "\n\n".join(a.text for a in sorted(topic.answers, key=lambda a: a.rank))
            judgments += [Judgment(topic.topic_id, run.run_id, 1, n.nugget_id,
                                   1.0 if " ".join(n.text.split())[:4] in passage else 0.0, "rule") for n in nuggets]
    expected = {r.run_id: r.score for r in evaluate_runs(gold, runs, matcher="human", judgments=judgments)}
    scored = {r["run_id"]: r["score"] for r in json.loads(first)["runs"]}
    assert scored == pytest.approx(expected, abs=1e-12) and len(scored) == len(runs)
    assert 0 < min(scored.values()) < max(scored.values()) < 1  # the rule decides both ways
    sizes = {t.topic_id: len(t.nuggets) for t in gold.topics}
    answered = [sizes[t.topic_id] for run in runs for t in run.topics if t.answers and sizes.get(t.topic_id)]
    assert asked_first == 1 + sum(-(-n // 10) for n in answered) < sum(answered)  # the probe, 10 nuggets a request
    assert "requests" in err and "prompt" in err and "completion tokens" in err


def test_settings_and_versions_name_the_model_and_the_prompts(tmp_path):
    prompt = tmp_path / "mine.txt"
    prompt.write_text((ROOT / "sepia/llm/prompts/assign.EN.txt").read_text().replace("atomic", "small"))
    with Stub() as stub:
        code, out, err = evaluate_cs(*options(stub))
        own_code, own, _ = evaluate_cs(*options(stub, prompt=prompt))
    assert code == 0 == own_code, err
    report, mine = json.loads(out), json.loads(own)
    versions = report["versions"]
    assert versions["llm_model"] == MODEL and len(versions["llm_model_sha256"]) == 64
    assert {f"llm_prompt_{lang}_sha256" for lang in ("EN", "CS", "CT", "JA")} <= set(versions)
    assert report["settings"]["versions"]["llm_model"] == MODEL
    assert mine["versions"]["llm_prompt_sha256"] not in versions.values()  # the user's own prompt's digest
    assert mine["settings"]["options"]["prompt"] == str(prompt)


def test_malformed_and_miscounted_answers_are_undecided_counted_and_listed():
    def sloppy(payload):
        passage, nuggets = asked(payload)
        if passage.startswith("Water boils"):
            return labels("support")  # the connection check
        if len(nuggets) % 2:
            return "I think they are all supported."        # malformed
        return labels(*["support"] * (len(nuggets) + 1))    # wrong count

    gold = read_file(CS / "gold.xml", "gold")
    runs = [read_file(p, "cclqa") for p in sorted((CS / "runs").glob("*.xml"))]
    with Stub(sloppy) as stub:
        code, out, err = evaluate_cs(*options(stub))
    assert code == 0, err
    assert all(r["score"] == 0 for r in json.loads(out)["runs"])
    answered = sum(len(t.nuggets) for run in runs for t in gold.topics if any(a.topic_id == t.topic_id and a.answers
                                                                            for a in run.topics))
    assert f"left {answered} of {answered} (run, topic, nugget) pairs undecided" in err
    assert "TEAMA-CS-CS-01-T SEPIA-CS-0001 N001" in err


def test_prose_around_json_is_read():
    def chatty(payload):
        return f"Of course. Here is my assessment:\n{all_support(payload)}\nLet me know if you need more."

    with Stub(chatty) as stub:
        code, out, err = evaluate_cs(*options(stub))
    assert code == 0 and "undecided" not in err
    assert all(r["score"] > 0 for r in json.loads(out)["runs"])


def test_429_and_500_are_retried_with_backoff_then_answered():
    seen: list[int] = []
    lock = threading.Lock()

    def flaky(payload):
        with lock:
            seen.append(1)
            n = len(seen)
        if n == 2:
            return Reply(429, headers=(("Retry-After", "0"),))
        if n == 3:
            return Reply(500, body=b'{"error": "boom"}')
        return all_support(payload)

    assessor = Assessor(Config(base_url="", backoff=0.01))
    with Stub(flaky) as stub:
        assessor = Assessor(Config(base_url=stub.url, backoff=0.01, concurrency=1)).connect()
        found = assessor.decide([Item("EN", "a passage", ("one", "two"))])
    assert found == [["support", "support"]]
    assert stub.chats == 4 and assessor.usage.requests == 1 and assessor.usage.attempts == 3


def test_a_server_failing_for_good_is_one_line_and_bounded():
    calls = []

    def broken(payload):
        calls.append(1)
        return labels("support") if len(calls) == 1 else Reply(500, body=b"{}")

    with Stub(broken) as stub:
        code, out, err = evaluate_cs(*options(stub, retries="2", concurrency="3"))
        chats = stub.chats
    assert code == 1 and out == ""
    assert err.strip().count("\n") == 0 and "HTTP 500" in err and "after 3 attempts" in err
    assert chats <= 1 + 3 * 3  # the probe, then at most concurrency requests of retries + 1 attempts each


def test_a_time_out_is_retried_and_a_slow_answer_waited_for():
    with Stub(lambda p: Reply(content=all_support(p), delay=0.6)) as stub:
        assessor = Assessor(Config(base_url=stub.url, timeout=0.2, retries=1, backoff=0.01))
        with pytest.raises(LLMError, match="timed out.* after 2 attempts"):
            assessor.connect()
        assert stub.chats <= 2
        slow = Assessor(Config(base_url=stub.url, timeout=3, backoff=0.01)).connect()
        assert slow.decide([Item("EN", "text", ("a",))]) == [["support"]]


def test_concurrency_is_bounded():
    running, most = [0], [0]
    lock = threading.Lock()

    def counted(payload):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return all_support(payload)

    with Stub(counted) as stub:
        assessor = Assessor(Config(base_url=stub.url, concurrency=3, batch=2)).connect()
        found = assessor.decide([Item("EN", f"passage {i}", ("a", "b", "c")) for i in range(8)])
    assert found == [["support"] * 3] * 8 and most[0] == 3 and assessor.usage.requests == 16


def test_the_key_comes_from_the_variable_named(monkeypatch):
    headers = []

    with Stub() as stub:
        original = stub.server.RequestHandlerClass.do_GET

        def remember(handler):
            headers.append(handler.headers.get("Authorization"))
            return original(handler)

        stub.server.RequestHandlerClass.do_GET = remember
        monkeypatch.setenv("MY_LLM_KEY", "sk-test")
        Assessor(Config(base_url=stub.url, api_key_env="MY_LLM_KEY")).connect()
    assert headers == ["Bearer sk-test"]


@pytest.mark.parametrize("case, expected", [
    ("no server", "no answer"),
    ("wrong URL", "HTTP 404"),
    ("nonsense", "answers something other than the labels asked for"),
    ("missing key", "MY_ABSENT_KEY"),
    ("unknown model", "does not serve the model 'gpt-9'"),
    ("no base_url", "needs its server"),
    ("bad batch", "batch is a number of at least 1"),
])
def test_bad_configuration_is_one_line_before_scoring(case, expected, monkeypatch):
    monkeypatch.delenv("MY_ABSENT_KEY", raising=False)
    with Stub(lambda p: "The quick brown fox.") if case == "nonsense" else Stub() as stub:
        given = {"no server": ["--matcher-option", "base_url=http://127.0.0.1:9/v1", "--matcher-option", "retries=0"],
                 "wrong URL": options(stub) + ["--matcher-option", f"base_url={stub.url}/nowhere"],
                 "missing key": options(stub, api_key_env="MY_ABSENT_KEY"),
                 "unknown model": options(stub, model="gpt-9"),
                 "no base_url": [],
                 "bad batch": options(stub, batch="0")}.get(case, options(stub))
        code, out, err = evaluate_cs(*given)
        chats = stub.chats
    assert code == 1 and out == "" and expected in err, err
    assert len(err.strip().splitlines()) == 1
    assert chats <= (1 if case == "nonsense" else 0)  # nothing scored: at most the connection check


# --- the TREC RAG 2024 assignments replayed ---

def consistent_copy(source: Path, target: Path) -> int:
    """The file with each (answer text, nugget) pair's first assignment wherever the pair recurs (up to
    white space, as a prompt lays both out); how
    many assignments that changed. TREC's assessor decided some identical pairs two ways (the same
    answer from two runs); a cached assessor, asked the same question, answers the same."""
    first: dict[tuple[str, str], str] = {}
    changed = 0
    with source.open(encoding="utf-8") as lines, target.open("w", encoding="utf-8") as out:
        for line in lines:
            record = json.loads(line)
            for nugget in record["nuggets"]:
                asked = (" ".join(record["answer_text"].split()), " ".join(nugget["text"].split()))
                kept = first.setdefault(asked, nugget["assignment"])
                changed += kept != nugget["assignment"]
                nugget["assignment"] = kept
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return changed


@pytest.mark.skipif(not RAG24.exists(), reason="TREC RAG 2024 data not in ../shared/data")
def test_trec_rag24_replayed_through_the_stub_scores_as_auto_judgments(tmp_path):
    from sepia.convert.nuggetizer import convert_nuggetizer
    from sepia.convert.autojudgments import auto_matchers

    replayed = tmp_path / "rag24.jl"
    assert consistent_copy(RAG24, replayed) == 64  # of 13,158 assignments
    conversion = convert_nuggetizer(replayed)
    text = {r.run_id: {t.topic_id: t.answers[0].text for t in r.topics} for r in conversion.runs}
    nugget_text = {(t.topic_id, n.nugget_id): " ".join(n.text.split()) for t in conversion.gold.topics for n in t.nuggets}
    decided = {(text[j.run_id][j.topic_id], nugget_text[(j.topic_id, j.nugget_id)]):
               {1.0: "support", 0.5: "partial_support", 0.0: "not_support"}[j.match] for j in conversion.judgments}

    def replay(payload):
        passage, nuggets = asked(payload)
        return labels(*[decided.get((passage, n), "support") for n in nuggets])

    with Stub(replay) as stub:
        llm = evaluate_runs(conversion.gold, conversion.runs, matcher="llm",
                            matcher_options={"base_url": stub.url, "concurrency": "8"})
    (auto_name, auto), = auto_matchers([str(replayed)], conversion.gold).items()
    expected = evaluate_runs(conversion.gold, conversion.runs, matcher=auto)
    assert len(llm) == len(expected) == 45
    assert [(r.run_id, r.score, r.nuggetizer) for r in llm] == [(r.run_id, r.score, r.nuggetizer) for r in expected]
    assert len({r.score for r in llm}) > 40 and not [w for w in llm[0].warnings if "undecided" in w]


@pytest.mark.skipif(not os.environ.get("SEPIA_TEST_LLM_URL"), reason="SEPIA_TEST_LLM_URL names no real server")
def test_a_real_server_end_to_end():
    """Against a real model (e.g. llama.cpp's server with Gemma 3 270M, docs/llm.md): the CS sample
    scored, then scored again from the cache alone."""
    given = ["--matcher-option", f"base_url={os.environ['SEPIA_TEST_LLM_URL']}", "--matcher-option", "concurrency=2"]
    code, first, err = evaluate_cs(*given)
    assert code == 0, err
    assert all(0 <= r["score"] <= 1 for r in json.loads(first)["runs"])
    served_model.cache_clear()
    code, second, err = evaluate_cs(*given)
    assert code == 0 and second == first and "(MODEL): 0 requests".replace("MODEL", json.loads(first)["versions"]["llm_model"]) in err


def test_an_answer_that_is_not_http_is_retried():
    """An answer that is not HTTP (http.client's BadStatusLine) is retried like a refused
    connection, then answered."""
    answered = []

    def cut_once(payload):
        answered.append(1)
        return Reply(body=b"") if len(answered) == 2 else all_support(payload)

    with Stub(cut_once) as stub:
        original = stub.server.RequestHandlerClass._send

        def send(handler, status, body, headers=()):
            if not body:  # a broken answer, then hang up
                handler.wfile.write(b"NOT HTTP AT ALL\r\n\r\n")
                handler.close_connection = True
                return
            original(handler, status, body, headers)

        stub.server.RequestHandlerClass._send = send
        assessor = Assessor(Config(base_url=stub.url, backoff=0.01)).connect()
        assert assessor.decide([Item("EN", "text", ("a",))]) == [["support"]]
    assert assessor.usage.attempts == 2
