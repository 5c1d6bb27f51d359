"""`sepia evaluate`'s output, written run by run.

A run's JSON object or TSV lines (and its warnings) are rendered as soon as the run is scored and set
aside in a temporary file (in memory up to a few megabytes, on disk beyond), so memory keeps only each
run's ranking key and, for the tables, its small row. `write` then gives the runs ranked, exactly as
rendering all the runs at once would (tests/test_scoring_stream.py compares them).
"""
from __future__ import annotations

import tempfile
from typing import Callable, Iterator, Literal, Sequence, get_args

from sepia.scoring.evaluate import RunScore
from sepia.scoring.report import RunRow, json_document, json_run, nuggetizer_table, table, tsv_header, tsv_rows

IN_MEMORY = 8 << 20  # bytes of rendered runs held in memory before they move to a file on disk
Format = Literal["table", "tsv", "json"]
FORMATS: tuple[Format, ...] = get_args(Format)


class RankedOutput:
    """Scored runs in, the command's output out: ranked by score (best first, ties by run ID) within
    each group (one group per matcher, in the order of their numbers)."""

    def __init__(self, output: Format, measures: Sequence[str] = (), settings: dict | None = None):
        if output not in FORMATS:
            raise ValueError(f"unknown output format {output!r}; choose one of {', '.join(FORMATS)}")
        self.output = output
        self.measures = measures
        self.settings = settings
        self._spool = tempfile.SpooledTemporaryFile(IN_MEMORY)
        self._entries: list[tuple] = []  # (group, -score, run ID, start, end of warnings, end, table row)
        self._topic_ids: dict[tuple[str, ...], tuple[str, ...]] = {}  # one tuple for all equal ones
        self.unscored: list[str] = []  # runs of a language the gold standard has no topic of

    def add(self, result: RunScore, group: int = 0) -> None:
        if not result.topics and result.run_id not in self.unscored:
            self.unscored.append(result.run_id)
        warnings = "".join(w + "\n" for w in result.warnings).encode()
        if self.output == "json":
            text = json_run(result, self.measures)
        elif self.output == "tsv":
            text = tsv_rows(result, self.measures)
        else:
            text = ""
            topic_ids = tuple(t.topic_id for t in result.topics)
            row = RunRow.of(result, self._topic_ids.setdefault(topic_ids, topic_ids))
        start = self._spool.tell()
        self._spool.write(warnings)
        self._spool.write(text.encode())
        self._entries.append((group, -result.score, result.run_id, start, start + len(warnings), self._spool.tell(),
                              row if self.output == "table" else None))

    def warnings(self) -> list[str]:
        """Every run's warnings, each once, in the order of the ranked runs."""
        seen: dict[str, None] = {}
        for _, _, _, start, middle, _, _ in self._ranked():
            seen.update(dict.fromkeys(self._read(start, middle).splitlines()))
        return list(seen)

    def write(self, echo: Callable[[str], None], title: Callable[[str], str] = lambda matcher: "") -> None:
        """The whole output through `echo` (one piece at a time); `title(matcher)` heads each table.
        The runs are then let go: `warnings` first."""
        try:
            self._write(echo, title)
        finally:
            self._spool.close()

    def _write(self, echo: Callable[[str], None], title: Callable[[str], str]) -> None:
        if self.output == "json":
            for piece in json_document((self._read(middle, end) for *_, middle, end, _ in self._ranked()),
                                       self.settings):
                echo(piece)
            echo("\n")
        elif self.output == "tsv":
            echo(tsv_header(self.measures))
            for *_, middle, end, _ in self._ranked():
                echo(self._read(middle, end))
        else:
            rows = [entry[-1] for entry in self._ranked()]
            for name in dict.fromkeys(r.matcher for r in rows):
                echo(table([r for r in rows if r.matcher == name], title(name)))
            if "nuggetizer" in self.measures:
                echo("\n" + nuggetizer_table(rows))

    def _ranked(self) -> Iterator[tuple]:
        return iter(sorted(self._entries))

    def _read(self, start: int, end: int) -> str:
        self._spool.seek(start)
        return self._spool.read(end - start).decode()
