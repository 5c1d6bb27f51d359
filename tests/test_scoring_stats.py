"""`sepia stats`: nugget statistics by language and answer type, checked by hand."""
import json

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.write import to_xml
from sepia.scoring.stats import nugget_stats
from tests.helpers import gold, nugget, topic

GOLD = gold("CS",
            topic("X-CS-0001", "DEFINITION", nugget("N1", "甲乙丙丁", 2, 2), nugget("N2", "戊 己", 1, 2)),
            topic("X-CS-0002", "DEFINITION", nugget("N1", "子丑寅卯辰巳", 1, 2)),
            topic("X-CS-0003", "PERSON", nugget("N1", "张三", 2, 2)))


def test_stats_by_language_and_type():
    rows = {(r.lang, r.answer_type): r for r in nugget_stats(GOLD)}
    d = rows[("CS", "DEFINITION")]
    # lengths 4, 2, 6 -> 4.0; pyramid weights 1, 0.5 (topic 1) and 1 (topic 2)
    assert (d.topics, d.nuggets, d.mean_nuggets, d.mean_length) == (2, 3, 1.5, 4.0)
    assert d.mean_weight == pytest.approx(2.5 / 3)
    a = rows[("CS", "ALL")]
    assert (a.topics, a.nuggets, a.mean_length) == (3, 4, 3.5)


def test_stats_command(tmp_path):
    path = tmp_path / "gold.xml"
    path.write_bytes(to_xml(GOLD))
    result = CliRunner().invoke(main, ["stats", str(path)])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["LANG", "TYPE", "TOPICS", "NUGGETS", "NUGGETS/TOPIC", "CHARS/NUGGET", "WEIGHT"]
    assert lines[1].split() == ["CS", "DEF", "2", "3", "1.5", "4.0", "0.83"]
    data = json.loads(CliRunner().invoke(main, ["stats", str(path), "--format", "json"]).output)
    assert data[-1]["answer_type"] == "ALL" and data[-1]["nuggets"] == 4
