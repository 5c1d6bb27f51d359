"""JSON reports record the versions of what decided their numbers (issue 13: the analyzers)."""
from __future__ import annotations

import json
import unicodedata
from importlib.metadata import version

from click.testing import CliRunner

from sepia.cli import main
from sepia.resources import resource_dir
from sepia.versions import analyzer_versions


def test_the_versions_are_those_installed():
    found = analyzer_versions()
    assert found["unicode"] == unicodedata.unidata_version
    for name in ("jieba", "sudachipy", "sudachidict-core", "opencc", "pystemmer"):
        assert found[name] == version(name)


def test_json_reports_carry_the_versions():
    cs = resource_dir("corpora") / "cs"
    commands = [
        ["agreement", "--gold", cs / "gold.xml", "--judgments", cs / "judgments.tsv", "--format", "json"],
        ["metaeval", "compare", "--gold", cs / "gold.xml", "--run", cs / "runs" / "TEAMA-CS-CS-01-T.xml",
         "--run", cs / "runs" / "TEAMB-CS-CS-01-T.xml", "--samples", "200", "--format", "json"],
        ["metaeval", "tukey", "--gold", cs / "gold.xml", "--run", cs / "runs", "--trials", "50", "--format", "json"],
        ["evaluate-ir4qa", "--qrels", cs / "qrels.tsv", "--run", cs / "ir4qa", "--format", "json"],
        ["evaluate", "--gold", cs / "gold.xml", "--run", cs / "runs", "--format", "json"],
        ["evaluate", "--gold", cs / "gold.xml", "--run", cs / "runs", "--matcher", "human",
         "--judgments", cs / "judgments.tsv", "--stem", "--stopwords", "--format", "json"],
    ]
    for command in commands:
        result = CliRunner().invoke(main, [str(a) for a in command])
        assert result.exit_code == 0, (command, result.output)
        assert json.loads(result.stdout)["versions"] == analyzer_versions(), command
