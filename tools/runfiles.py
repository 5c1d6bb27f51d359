"""What the run benchmarks share: IR4QA runs of a given shape as a team would write them, the topics
they answer, and a campaign that takes them over the API (a participant, a token, an open window)."""
from __future__ import annotations

import http.client
import json
from datetime import timedelta

from sepia.store.db import Store
from sepia.store.models import ApiToken, TaskWindow, Topic, TopicSet, TopicText, User, utcnow
from sepia.services.accounts import team_named
from sepia.services.accounts import hash_password
from sepia.services.logins import digest

TEAM = "BENCH"
TOKEN = "sepia_bench-token"


def topic_id(number: int) -> str:
    return f"ACLIA2-CS-{number:04d}"


def ir4qa_lines(run_id: str, topics: int, documents: int):
    """An IR4QA run of `topics` x `documents` line by line, laid out as write.to_xml lays runs out
    (about 66 bytes a document: 900 x 1,000 make 59 MB, under the 64 MiB limit)."""
    yield from ('<?xml version="1.0" encoding="UTF-8"?>', "<TOPIC_SET>", "  <METADATA>",
                f"    <RUNID>{run_id}</RUNID>", "    <DESCRIPTION>benchmark run</DESCRIPTION>", "  </METADATA>")
    for t in range(1, topics + 1):
        yield from (f'  <TOPIC ID="{topic_id(t)}">', "    <IR4QA_RESULT>")
        yield from (f'      <DOCUMENT RANK="{r}" DOCID="XIN_2008{t:04d}.{r:04d}" SCORE="{1000 - r}.5"/>'
                    for r in range(1, documents + 1))
        yield from ("    </IR4QA_RESULT>", "  </TOPIC>")
    yield "</TOPIC_SET>"


def ir4qa_run(run_id: str, topics: int, documents: int) -> bytes:
    return ("\n".join(ir4qa_lines(run_id, topics, documents)) + "\n").encode()


def write_ir4qa_run(path, run_id: str, topics: int, documents: int) -> None:
    """The same run written to a file a line at a time, so that this process stays small."""
    with open(path, "w", encoding="utf-8") as out:
        for line in ir4qa_lines(run_id, topics, documents):
            out.write(line + "\n")


def topics_file(topics: int) -> bytes:
    body = "".join(f'<TOPIC ID="{topic_id(t)}"><QUESTION LANG="CS">问题{t}？</QUESTION>'
                   f'<QUESTION LANG="EN">Question {t}?</QUESTION></TOPIC>' for t in range(1, topics + 1))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<TOPIC_SET LANG="CS">{body}</TOPIC_SET>\n'.encode()


def seed_campaign(url: str, topics: int) -> str:
    """`topics` topics in a topic set whose IR4QA window is open, and a participant of team BENCH
    with a personal token, which is returned."""
    store = Store(url)
    now = utcnow()
    with store.transaction() as session:
        topic_set = TopicSet(name="Benchmark", windows=[TaskWindow(
            task="ir4qa", opens_at=now - timedelta(hours=1), closes_at=now + timedelta(days=1), max_runs=5)])
        session.add(topic_set)
        session.flush()
        session.add_all(Topic(id=topic_id(t), lang="CS", answer_type="DEFINITION", status="completed",
                              topic_set_id=topic_set.id,
                              texts=[TopicText(kind="question", lang="CS", text=f"问题{t}？", position=0)])
                        for t in range(1, topics + 1))
        user = User(username="bench", password_hash=hash_password("bench-password-1"), role="participant",
                    team=team_named(session, TEAM))
        session.add(user)
        session.flush()
        session.add(ApiToken(user_id=user.id, name="bench", token_hash=digest(TOKEN)))
    store.dispose()
    return TOKEN


def upload(port: int, data: bytes, filename: str, token: str = TOKEN) -> tuple[int, dict]:
    """POST /api/runs as `sepia submit` does; the status and the JSON answer."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        connection.request("POST", "/api/runs", body=data, headers={
            "Authorization": f"Bearer {token}", "Content-Type": "application/xml", "X-Filename": filename,
            "Accept": "application/json"})
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    try:
        return response.status, json.loads(body)
    except ValueError:
        return response.status, {"problems": [body[:200].decode("utf-8", "replace")]}
