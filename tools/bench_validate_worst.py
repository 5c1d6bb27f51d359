"""Benchmark: `sepia validate` and `sepia import` on hostile files, each at sizes n, 2n and 4n.

    .venv/bin/python tools/bench_validate_worst.py [--scale 1] [--repeat 3] [--case NAME ...]
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/test]

Each case is a file built to make one part of validation or import slow: a check that compares
every item with every other, a position looked up from the start of the file for each problem,
one query per DOCID. Time linear in the file doubles when the file doubles, so the aim is a ratio
of about 2 at each doubling (4 would be quadratic). Both commands run in this process (click's test
runner), timed on the wall clock (a database works outside the process); the fastest of the rounds
is reported, the one least disturbed by other work on the machine.
`import` gets a fresh, migrated store for each round (SQLite in a temporary directory, or a schema
of its own in the PostgreSQL database given); it validates first, so for an invalid file it costs
what `validate` does. For the unknown-DOCIDs case the store holds a small CS collection, so that
`validate` checks every DOCID against it.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from click.testing import CliRunner

from sepia.cli import main as sepia
from sepia.store.db import Store
from sepia.store.models import Document

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<TOPIC_SET>\n'
RUN_ID = "TEAM-CS-CS-01-T"
METADATA = f"<METADATA><RUNID>{RUN_ID}</RUNID><DESCRIPTION>bench</DESCRIPTION></METADATA>\n"
QUESTION = '<QUESTION LANG="CS">问</QUESTION><QUESTION LANG="EN">q</QUESTION>'
JUDGMENTS = "topic_id\trun_id\tanswer_rank\tnugget_id\tmatch\tassessor\n"


def unknown_docids(n: int) -> str:
    """An IR4QA run of n topics x 1,000 DOCIDs, none of them in the stored collection."""
    topics = "".join(
        f'<TOPIC ID="X-CS-{t}"><IR4QA_RESULT>\n'
        + "".join(f'<DOCUMENT RANK="{r}" DOCID="UNKNOWN-{t}-{r}"/>\n' for r in range(1, 1001))
        + "</IR4QA_RESULT></TOPIC>\n" for t in range(n))
    return HEAD + METADATA + topics + "</TOPIC_SET>\n"


def repeated_topic_ids(n: int, newline: str = "\n") -> str:
    """A topic set with n copies of one topic."""
    return HEAD + newline.join([f'<TOPIC ID="X-CS-1">{QUESTION}</TOPIC>'] * n) + "</TOPIC_SET>\n"


def repeated_topic_ids_one_line(n: int) -> str:
    """The same on one line: every position is on that line."""
    return repeated_topic_ids(n, "")


def repeated_answer_ranks(n: int) -> str:
    """A CCLQA run of one topic with n answers, all of rank 1."""
    answers = "\n".join(['<ANSWER RANK="1"><TEXT>甲</TEXT><DOCID>D1</DOCID></ANSWER>'] * n)
    return HEAD + METADATA + f'<TOPIC ID="X-CS-1"><CCLQA_RESULT>\n{answers}\n</CCLQA_RESULT></TOPIC>\n</TOPIC_SET>\n'


def bogus_attribute_per_answer(n: int) -> str:
    """A CCLQA run of one topic with n answers, each with an attribute the schema does not know."""
    answers = "\n".join(f'<ANSWER RANK="{r}" BOGUS="x"><TEXT>甲</TEXT></ANSWER>' for r in range(1, n + 1))
    return HEAD + METADATA + f'<TOPIC ID="X-CS-1"><CCLQA_RESULT>\n{answers}\n</CCLQA_RESULT></TOPIC>\n</TOPIC_SET>\n'


def repeated_docids(n: int) -> str:
    """An IR4QA run of n topics, each ranking one document 100 times."""
    docs = "".join(f'<DOCUMENT RANK="{r}" DOCID="D1"/>\n' for r in range(1, 101))
    topics = "".join(f'<TOPIC ID="X-CS-{t}"><IR4QA_RESULT>\n{docs}</IR4QA_RESULT></TOPIC>\n' for t in range(n))
    return HEAD + METADATA + topics + "</TOPIC_SET>\n"


def bogus_attributes(n: int) -> str:
    """n attributes the schema does not know, on the root element."""
    return '<?xml version="1.0" encoding="UTF-8"?>\n<TOPIC_SET ' + " ".join(f'A{i}="x"' for i in range(n)) + "/>\n"


def bogus_attribute_per_topic(n: int) -> str:
    """n topics, each with an attribute the schema does not know."""
    return HEAD + "".join(f'<TOPIC ID="X-CS-{i}" BOGUS="x">{QUESTION}</TOPIC>\n' for i in range(n)) + "</TOPIC_SET>\n"


def late_schema_errors(n: int) -> str:
    """n good topics, then 1,001 bad ones: the problems shown are all at the end of the file."""
    good = "".join(f'<TOPIC ID="X-CS-{i}">{QUESTION}</TOPIC>\n' for i in range(n))
    bad = "".join(f'<TOPIC ID="X-CS-{n + i}" BOGUS="x">{QUESTION}</TOPIC>\n' for i in range(1001))
    return HEAD + good + bad + "</TOPIC_SET>\n"


def long_topic_ids(n: int) -> str:
    """n topics whose IDs are longer than the store's column."""
    return HEAD + "".join(f'<TOPIC ID="X-CS-{i:078d}">{QUESTION}</TOPIC>\n' for i in range(n)) + "</TOPIC_SET>\n"


def repeated_votes(n: int) -> str:
    """A gold standard whose one nugget has n votes by the same assessor."""
    votes = "\n".join(['<VOTE ASSESSOR="a" VITAL="1"/>'] * n)
    return (HEAD.replace("<TOPIC_SET>", '<TOPIC_SET LANG="CS">') + f'<TOPIC ID="X-CS-1" ANSWER_TYPE="WHY">{QUESTION}'
            f'<NUGGET ID="N1"><TEXT>甲</TEXT>\n{votes}\n</NUGGET></TOPIC>\n</TOPIC_SET>\n')


def repeated_judgments(n: int) -> str:
    """A judgments TSV with n copies of one judgment."""
    return JUDGMENTS + f"X-CS-1\t{RUN_ID}\t1\tN1\t1\ta\n" * n


def many_topics(n: int) -> str:
    """A valid topic set of n topics: the import writes them all."""
    return HEAD + "".join(f'<TOPIC ID="X-CS-{i}">{QUESTION}</TOPIC>\n' for i in range(n)) + "</TOPIC_SET>\n"


# name: (file maker, n at --scale 1, file name)
CASES: dict[str, tuple[Callable[[int], str], int, str]] = {
    "unknown-docids": (unknown_docids, 10, f"{RUN_ID}.xml"),
    "repeated-topic-ids": (repeated_topic_ids, 15_000, "topics.xml"),
    "repeated-topic-ids-one-line": (repeated_topic_ids_one_line, 15_000, "topics.xml"),
    "repeated-answer-ranks": (repeated_answer_ranks, 15_000, f"{RUN_ID}.xml"),
    "repeated-docids": (repeated_docids, 150, f"{RUN_ID}.xml"),
    "bogus-attributes": (bogus_attributes, 50_000, "topics.xml"),
    "bogus-attribute-per-topic": (bogus_attribute_per_topic, 15_000, "topics.xml"),
    "late-schema-errors": (late_schema_errors, 15_000, "topics.xml"),
    "bogus-attribute-per-answer": (bogus_attribute_per_answer, 5_000, f"{RUN_ID}.xml"),
    "long-topic-ids": (long_topic_ids, 15_000, "topics.xml"),
    "repeated-votes": (repeated_votes, 15_000, "gold.xml"),
    "repeated-judgments": (repeated_judgments, 50_000, "judgments.tsv"),
    "many-topics": (many_topics, 5_000, "topics.xml"),
}


@contextmanager
def fresh_store(database_url: str | None, tmp: Path) -> Iterator[str]:
    """The URL of a new, migrated store holding a small CS collection."""
    if database_url is None:
        url, drop = f"sqlite:///{tmp / f'store-{uuid.uuid4().hex}.db'}", None
    else:
        from sqlalchemy import create_engine, text

        schema = f"bench_{uuid.uuid4().hex[:12]}"
        admin = create_engine(database_url)
        with admin.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        separator = "&" if "?" in database_url else "?"
        url = f"{database_url}{separator}options=-csearch_path%3D{schema}"

        def drop():
            with admin.begin() as connection:
                connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()
    store = Store(url)
    with store.transaction() as session:
        session.add_all(Document(docid=f"D{i}", lang="CS", title="", text="文") for i in range(1, 11))
    store.dispose()
    try:
        yield url
    finally:
        if drop:
            drop()


def timed(args: list[str], url: str) -> float:
    start = time.perf_counter()
    result = CliRunner().invoke(sepia, args, env={"SEPIA_DATABASE_URL": url})
    elapsed = time.perf_counter() - start
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return elapsed


def measure(path: Path, repeat: int, database_url: str | None, tmp: Path) -> tuple[float, float]:
    """Seconds of `sepia validate PATH` and of `sepia import PATH` (into a fresh store), fastest round."""
    validate, imports = [], []
    with fresh_store(database_url, tmp) as url:
        for _ in range(repeat):
            validate.append(timed(["validate", "-q", str(path)], url))
    for _ in range(repeat):
        with fresh_store(database_url, tmp) as url:
            imports.append(timed(["import", str(path)], url))
    return min(validate), min(imports)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every case's n")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the fastest is reported")
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="only these cases")
    parser.add_argument("--database-url", help="a PostgreSQL database to make the stores in (default SQLite)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sepia-bench-") as tmp:
        os.environ["SEPIA_HOME"] = tmp  # never the user's own store
        print(f"store: {'PostgreSQL' if args.database_url else 'SQLite'}; wall-clock seconds, fastest of "
              f"{args.repeat}; ratio = time / time at half the size (aim: about 2, linear)")
        print(f"{'case':28} {'n':>8} {'MB':>6} {'validate':>9} {'ratio':>6} {'import':>9} {'ratio':>6}")
        for name in args.case or CASES:
            make, base, file_name = CASES[name]
            previous = None
            for factor in (1, 2, 4):
                n = max(1, round(base * args.scale)) * factor
                path = Path(tmp) / file_name
                path.write_text(make(n), encoding="utf-8")
                times = measure(path, args.repeat, args.database_url, Path(tmp))
                ratios = [f"{t / p:6.2f}" for t, p in zip(times, previous)] if previous else ["", ""]
                print(f"{name:28} {n:8} {path.stat().st_size / 1e6:6.1f} {times[0]:9.3f} {ratios[0]:>6} "
                      f"{times[1]:9.3f} {ratios[1]:>6}", flush=True)
                previous = times


if __name__ == "__main__":
    main()
