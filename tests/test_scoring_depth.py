"""`sepia evaluate --depth N`: only the first N responses (by rank) of a run per topic count; the same
as scoring a run file that holds only those responses, from files and from the store."""
import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.read import read_file
from sepia.formats.write import to_xml
from sepia.resources import resource_dir
from sepia.scoring.depth import at_depth

CS = resource_dir("corpora") / "cs"


def scores(*args):
    result = CliRunner().invoke(main, ["evaluate", *map(str, args), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("matcher", [["--matcher", "binarized"], ["--matcher", "human", "--judgments",
                                                                   CS / "judgments.tsv"]])
def test_depth_equals_a_run_cut_by_hand(tmp_path, matcher):
    run = read_file(CS / "runs" / "TEAMA-CS-CS-01-T.xml")
    # the file lists each topic's answers worst rank first: the depth goes by rank, not file order
    shuffled = replace(run, topics=[replace(t, answers=sorted(t.answers, key=lambda a: -a.rank)) for t in run.topics])
    (tmp_path / "full.xml").write_bytes(to_xml(shuffled))
    for depth in (1, 2):
        cut = replace(run, topics=[replace(t, answers=[a for a in t.answers if a.rank <= depth]) for t in run.topics])
        (tmp_path / "cut.xml").write_bytes(to_xml(cut))
        by_hand = scores("--gold", CS / "gold.xml", tmp_path / "cut.xml", *matcher)
        with_depth = scores("--gold", CS / "gold.xml", tmp_path / "full.xml", "--depth", depth, *matcher)
        assert with_depth["runs"] == by_hand["runs"]
        assert with_depth["settings"]["depth"] == depth and "depth" not in by_hand["settings"]
    full = scores("--gold", CS / "gold.xml", tmp_path / "full.xml", *matcher)
    assert full["runs"][0]["score"] != with_depth["runs"][0]["score"]


def test_depth_from_the_store_equals_files(store_url, monkeypatch):
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    runs = sorted((CS / "runs").glob("*.xml"))
    imported = CliRunner().invoke(main, ["import", str(CS / "gold.xml"), *map(str, runs)])
    assert imported.exit_code == 0, imported.output
    assert scores("--store", "--depth", "2")["runs"] == scores("--gold", CS / "gold.xml", *runs, "--depth", "2")["runs"]


def test_at_depth_refuses_zero():
    run = read_file(CS / "runs" / "TEAMA-CS-CS-01-T.xml")
    assert at_depth(run, None) is run
    with pytest.raises(ValueError):
        at_depth(run, 0)
