#!/usr/bin/env python
"""Benchmark: the web tool's pages under concurrent clients, against the documented production start.

    .venv/bin/python tools/bench_web.py                  # 16 clients, 20 s, the sample campaign
    .venv/bin/python tools/bench_web.py --clients 32 --seconds 60

Builds the sample campaign in a fresh data directory (`sepia demo --no-serve`: store and search
indexes), starts gunicorn as docs/web.md does and measures over loopback:

1. what one request of each page costs the server, load-independently: its CPU time (master and
   workers, from /proc) over a few hundred requests of the page sent one at a time;
2. the pages under concurrent clients: half the clients are assessors (the voting page, and the
   judging screen of a CCLQA pool and the relevance screen of an IR4QA pool, both of depth 10
   built from the sample runs, one of each kind for each assessor), the others topic developers (nugget page, topic page, the
   search pane with a query that finds documents of the topic's language) but for one in eight, an
   organiser (the results page); every client also fetches the style sheet, a trivial request of
   the same application, as the baseline. The clients are driven by one thread over raw keep-alive sockets
   (`webload.LeanClients`), so that the load generator takes little of the machine it shares with
   the server; its CPU time is printed beside the server's.

Prints p50 and p95 per page beside the aims (p95 under 50 ms, and at most 2 times the trivial
request's p95), the CPU per request of server and client, the SQL statements a request of each page
sends (counted in process once the server has stopped: less sensitive to the machine's load than
times), and the machine's load before and after.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from sqlalchemy import select  # noqa: E402
from webload import (BIN, PASSWORD, TOKEN_RE, Client, LeanClients, Server, production_server,  # noqa: E402
                     server_env)

from sepia.store.db import Store  # noqa: E402
from sepia.store.models import PoolEntry, Topic  # noqa: E402
from sepia.store.pools import assign_pool, build_pool  # noqa: E402
from sepia.services.accounts import create_user  # noqa: E402

AIM_MS = 50.0
AIM_RATIO = 2.0  # a page's p95 over the trivial request's
TRIVIAL = "trivial page (baseline)"
ASSESSOR_PAGES = ("voting page", "judging screen", "relevance screen")
DEVELOPER_PAGES = ("nugget page", "topic page", "search pane")
ORGANISER_PAGES = ("results page",)
JUDGING = {"judging screen": "cclqa", "relevance screen": "ir4qa"}  # page -> the kind of pool it judges


def role(index: int) -> str:
    """Client `index`'s role: even ones assess, one in eight organises, the others develop topics."""
    return "assessor" if index % 2 == 0 else "organiser" if index % 8 == 7 else "topic_developer"


def pages_of(index: int) -> tuple[str, ...]:
    return {"assessor": ASSESSOR_PAGES, "organiser": ORGANISER_PAGES}.get(role(index), DEVELOPER_PAGES)


def prepare(home: Path, clients: int) -> tuple[list[dict], dict[str, dict[str, list[str]]]]:
    """The sample campaign with accounts and a CCLQA and an IR4QA pool for each assessor;
    returns each topic with nuggets (its ID and the queries that may find its documents: prefixes of
    its answer texts and nuggets) and each assessor's judging paths by page."""
    subprocess.run([str(BIN / "sepia"), "demo", "--no-serve", "--home", str(home)], env=server_env(home, None),
                   check=True, capture_output=True)
    store = Store(f"sqlite:///{home / 'sepia.db'}")
    with store.transaction() as session:
        for i in range(clients):
            create_user(session, f"bench{i:02d}", PASSWORD, role(i))
        assessors = [f"bench{i:02d}" for i in range(clients) if role(i) == "assessor"]
        queues: dict[str, dict[str, list[str]]] = {name: {} for name in assessors}
        for page, kind in JUDGING.items():  # a pool of each kind for each assessor: every topic in every queue
            for name in assessors:
                pool = build_pool(session, f"{kind}-{name}", kind, 10)
                assign_pool(session, pool.name, [name])
                session.flush()
                topic_ids = session.scalars(select(PoolEntry.topic_id).where(PoolEntry.pool_id == pool.id)
                                            .distinct().order_by(PoolEntry.topic_id))
                queues[name][page] = [f"/judge/{pool.id}/{topic_id}" for topic_id in topic_ids]
        topics = []
        for topic in session.query(Topic).filter(Topic.nuggets.any()).order_by(Topic.id):
            topic.status = "completed"  # the sample topics have nuggets; voting needs them completed
            texts = [a.text for a in topic.answer_texts] + [n.text for n in topic.nuggets]
            words = ["".join(c for c in text if c.isalnum()) for text in texts]
            topics.append({"id": topic.id, "queries": [w[:n] for w in words for n in (4, 3, 2) if len(w) >= n]})
    store.dispose()
    return topics, queues


def page_path(page: str, topic: dict, queue: dict[str, list[str]] | None = None, pick: int = 0) -> str:
    """The page's path for a topic; a judging page's from the assessor's queue (its `pick`-th topic)."""
    if page in JUDGING:
        return queue[page][pick % len(queue[page])]
    return {"voting page": f"/votes/{topic['id']}", "nugget page": f"/nuggets/{topic['id']}",
            "topic page": f"/topics/{topic['id']}",
            "search pane": f"/topics/{topic['id']}/search?q={quote(topic.get('query', ''))}",
            "results page": "/results/", TRIVIAL: "/static/sepia.css"}[page]


def choose_queries(developer: Client, topics: list[dict]) -> None:
    """Each topic's search: the first of its queries whose results pane lists documents."""
    for topic in topics:
        topic["query"], topic["finds"] = topic["queries"][0], False
        for query in topic["queries"]:
            _status, pane = developer.request("GET", f"/topics/{topic['id']}/search?q={quote(query)}")
            if 'class="hits"' in pane:
                topic["query"], topic["finds"] = query, True
                break


def cost_per_request(server: Server, clients: dict[str, Client], topics: list[dict], queue: dict[str, list[str]],
                     repeats: int) -> dict:
    """Page -> (server CPU ms, client CPU ms, p50 ms) of requests sent one at a time; `clients` by
    role, `queue` the assessor's judging paths."""
    costs = {}
    for page in (*ASSESSOR_PAGES, *DEVELOPER_PAGES, *ORGANISER_PAGES, TRIVIAL):
        client = clients["assessor" if page in ASSESSOR_PAGES else "organiser" if page in ORGANISER_PAGES
                         else "topic_developer"]
        paths = [page_path(page, topics[i % len(topics)], queue, i) for i in range(repeats)]
        for path in paths[:20]:  # warm every worker's caches
            client.request("GET", path)
        times = []
        server_before, client_before = server.cpu_seconds(), time.process_time()
        for path in paths:
            started = time.perf_counter()
            status, _ = client.request("GET", path)
            times.append(time.perf_counter() - started)
            if status != 200:
                raise RuntimeError(f"{path} answered {status}")
        costs[page] = ((server.cpu_seconds() - server_before) / repeats * 1000,
                       (time.process_time() - client_before) / repeats * 1000, statistics.median(times) * 1000)
    return costs


def statements_per_request(home: Path, topics: list[dict], queue: dict[str, list[str]]) -> dict[str, int]:
    """Page -> the SQL statements its second request sends (the first may fill what a process keeps),
    counted in this process with Flask's test client on the same data directory: the server's code."""
    from sqlalchemy import event

    from sepia.web.app import create_app

    os.environ.update(server_env(home, None))
    app = create_app()
    counts, sent = {}, []
    event.listen(app.extensions["sepia_store"].engine, "before_cursor_execute", lambda *args: sent.append(1))
    browsers = {name: app.test_client() for name in ("assessor", "organiser", "topic_developer")}
    for index, name in ((0, "assessor"), (7, "organiser"), (1, "topic_developer")):
        token = TOKEN_RE.search(browsers[name].get("/login").get_data(as_text=True)).group(1)
        browsers[name].post("/login", data={"username": f"bench{index:02d}", "password": PASSWORD, "csrf_token": token})
    for page in (*ASSESSOR_PAGES, *DEVELOPER_PAGES, *ORGANISER_PAGES, TRIVIAL):
        browser = browsers["assessor" if page in ASSESSOR_PAGES else "organiser" if page in ORGANISER_PAGES
                           else "topic_developer"]
        path = page_path(page, topics[0], queue)
        browser.get(path)
        sent.clear()
        if browser.get(path).status_code != 200:
            raise RuntimeError(f"{path} answered in process otherwise than 200")
        counts[page] = len(sent)
    app.extensions["sepia_store"].dispose()
    return counts


def under_load(server: Server, cookies: list[str], topics: list[dict], queues: dict[str, dict[str, list[str]]],
               seconds: float) -> tuple[dict, float, float]:
    """Timings per page of every client requesting without pause; server and client CPU ms a request."""
    rngs = [random.Random(index) for index in range(len(cookies))]
    judging_queues = queues
    queues: list[list[tuple[str, str]]] = [[] for _ in cookies]
    timings: dict[str, list[float]] = {}

    def next_request(index: int) -> tuple[str, str]:
        if not queues[index]:
            topic, pick = rngs[index].choice(topics), rngs[index].randrange(len(topics))
            judging = judging_queues.get(f"bench{index:02d}")
            queues[index] = [(page, page_path(page, topic, judging, pick)) for page in (*pages_of(index), TRIVIAL)]
        return queues[index].pop(0)

    def on_answer(_index: int, page: str, status: int, elapsed: float) -> None:
        timings.setdefault(page if status == 200 else f"errors {status}", []).append(elapsed)

    server_before, client_before = server.cpu_seconds(), time.process_time()
    LeanClients(server.port, cookies, next_request, on_answer).run(seconds)
    requests = sum(len(values) for values in timings.values())
    return (timings, (server.cpu_seconds() - server_before) / requests * 1000,
            (time.process_time() - client_before) / requests * 1000)


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--repeats", type=int, default=200, help="requests of each page sent one at a time")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sepia-bench-web-") as folder:
        home = Path(folder)
        topics, queues = prepare(home, max(args.clients, 8))
        load_before = load_average()
        with production_server(server_env(home, None), args.workers, args.threads) as server:
            browsers = []
            for index in range(args.clients):
                browsers.append(Client(server.port))
                browsers[-1].log_in(f"bench{index:02d}")
            by_role: dict[str, Client] = {}  # the first client of each role
            for index, client in enumerate(browsers):
                by_role.setdefault(role(index), client)
            if "organiser" not in by_role:  # fewer than 8 clients: one more, for the one-at-a-time costs
                by_role["organiser"] = Client(server.port)
                by_role["organiser"].log_in("bench07")
            choose_queries(by_role["topic_developer"], topics)
            costs = cost_per_request(server, by_role, topics, queues["bench00"], args.repeats)
            timings, server_ms, client_ms = under_load(server, [b.cookie for b in browsers], topics, queues,
                                                       args.seconds)
        load_after = load_average()
        statements = statements_per_request(home, topics, queues["bench00"])
    print(f"# gunicorn {args.workers} workers x {args.threads} threads, sample campaign ({len(topics)} topics, "
          f"{sum(t['finds'] for t in topics)} of whose searches find documents); {os.cpu_count()} cores; "
          f"load average before {load_before}, after {load_after}")
    print(f"# one request at a time ({args.repeats} of each page)")
    print(f"{'page':26} {'server CPU ms':>14} {'client CPU ms':>14} {'p50 ms':>8} {'SQL statements':>15}")
    for page, (server_cpu, client_cpu, p50) in costs.items():
        print(f"{page:26} {server_cpu:14.2f} {client_cpu:14.2f} {p50:8.2f} {statements[page]:15d}")
    print(f"# {args.clients} clients without pause, {args.seconds:g} s")
    baseline = statistics.quantiles(timings[TRIVIAL], n=20)[-1] * 1000
    print(f"{'page':26} {'requests':>9} {'p50 ms':>8} {'p95 ms':>8} {'aim p95':>8} {'p95/trivial':>12} "
          f"{'aim':>6}")
    for name, values in sorted(timings.items(), key=lambda item: (item[0] != TRIVIAL, item[0])):
        p50 = statistics.median(values) * 1000
        p95 = statistics.quantiles(values, n=20)[-1] * 1000 if len(values) > 1 else p50
        page = not name.startswith(("trivial", "errors"))
        aims = (f"< {AIM_MS:g}", f"<= {AIM_RATIO:g}") if page else ("", "")
        verdict = (f"  {'met' if p95 < AIM_MS else 'NOT MET'} / {'met' if p95 / baseline <= AIM_RATIO else 'NOT MET'}"
                   if page else "")
        print(f"{name:26} {len(values):9d} {p50:8.1f} {p95:8.1f} {aims[0]:>8} {p95 / baseline:12.2f} "
              f"{aims[1]:>6}{verdict}")
    requests = sum(len(values) for values in timings.values())
    print(f"# CPU a request under load: server {server_ms:.2f} ms, load generator {client_ms:.2f} ms; "
          f"{requests / args.seconds:.0f} requests/s; by CPU alone the mean wait of {args.clients} clients on "
          f"{os.cpu_count()} cores is {args.clients * (server_ms + client_ms) / os.cpu_count():.1f} ms")
    return 1 if any(name.startswith("errors") for name in timings) else 0


if __name__ == "__main__":
    sys.exit(main())
