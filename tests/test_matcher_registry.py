"""One matcher interface: descriptors that the CLI, Settings.describe, reports and the web read;
adding a matcher is one file (in sepia/matchers/ or as a plug-in's entry point)."""
from __future__ import annotations

import json
import pkgutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import sepia.matchers as registry
from sepia.cli import main
from sepia.matchers.base import Matcher, MatcherKind, MatcherOptions
from sepia.scoring.evaluate import Settings

ROOT = Path(__file__).resolve().parents[1]
CS = ROOT / "corpora" / "cs"

def _docs_example() -> str:
    """The one-file matcher docs/matchers.md shows: the test runs exactly what the page tells people to write."""
    page = (ROOT / "docs" / "matchers.md").read_text(encoding="utf-8")
    section = page[page.index("## Adding a matcher is one file"):]
    return section[section.index("```python\n") + len("```python\n"):section.index("\n```\n", section.index("```python"))]


ONE_FILE = _docs_example()


@pytest.fixture
def one_more_file(tmp_path, monkeypatch):
    """The toy matcher's file dropped beside the built-ins, as a developer adding a matcher would."""
    folder = tmp_path / "matchers"
    folder.mkdir()
    (folder / "lastchar.py").write_text(ONE_FILE, encoding="utf-8")
    monkeypatch.setattr(registry, "__path__", [*registry.__path__, str(folder)])
    registry.builtin_kinds.cache_clear()
    yield folder
    registry.builtin_kinds.cache_clear()


def test_every_module_of_the_package_is_a_registered_matcher():
    modules = {m.name for m in pkgutil.iter_modules(registry.__path__)} - {"base", "bagmatch", "decisions"}
    assert modules == set(registry.builtin_kinds())
    for kind in registry.builtin_kinds().values():
        assert (kind.options or kind.extra or kind.name == "embedding") and kind.summary and kind.label  # e5: none
        if kind.opt_in:  # made only when told where to ask (tests/test_llm_matcher.py)
            continue
        made = registry.make(kind.name, MatcherOptions(judgments=[]))
        assert isinstance(made, Matcher) and made.name == kind.name


def test_descriptors_say_what_each_builtin_is():
    kinds = registry.builtin_kinds()
    assert {n: k.automatic for n, k in kinds.items()} == {"binarized": True, "softmatch": True, "exact": True,
                                                          "human": False, "learned": True, "llm": True,
                                                          "embedding": True}
    assert kinds["human"].needs_judgments and not kinds["binarized"].needs_judgments
    assert "numbers" in kinds["binarized"].options and "numbers" in kinds["softmatch"].options
    assert "numbers" not in kinds["exact"].options
    assert registry.names(automatic_only=True) == ["binarized", "embedding", "exact", "learned", "llm", "softmatch"]
    assert kinds["learned"].learns_from_other_runs and not kinds["learned"].needs_judgments
    assert set(kinds["learned"].extra) == {"model", "threshold", "holdout"}
    assert kinds["binarized"].title == "automatic (BINARIZED)" and kinds["human"].title == "human"


def test_a_descriptor_names_only_known_options():
    with pytest.raises(ValueError, match="unknown options: colour"):
        MatcherKind("x", "x", True, make=lambda o: None, options=("colour",))


@pytest.mark.parametrize("matcher, expected", [
    # the settings kept with stored scores before descriptors existed: they must not change
    ("binarized", {"matcher": "binarized", "theta": 0.5}),
    ("softmatch", {"matcher": "softmatch", "theta": None}),
    ("exact", {"matcher": "exact", "theta": None}),
    ("human", {"matcher": "human", "theta": None, "partial": 0.5}),
])
def test_describe_is_what_it_was_for_the_builtins(matcher, expected):
    tokens = "character unigrams for CJK, words otherwise; stemming off, stop words kept, as a bag"
    assert Settings(matcher).describe() == {**expected, "beta": 3.0, "weights": "pyramid",
                                            "allowance": "C = mean gold nugget length per language and type",
                                            "tokens": tokens}


def test_describe_names_strict_numbers_only_for_matchers_that_take_them():
    assert Settings("binarized", numbers="strict").describe()["numbers"] == "strict"
    assert "numbers" not in Settings("exact", numbers="strict").describe()
    assert "numbers" not in Settings("binarized").describe()


def test_human_needs_judgments_and_unknown_names_are_refused():
    with pytest.raises(ValueError, match="human matcher needs judgments"):
        registry.make("human")
    with pytest.raises(ValueError, match="unknown matcher 'nosuch'"):
        registry.kind("nosuch")
    with pytest.raises(ValueError, match="takes no option model"):
        registry.make("binarized", MatcherOptions(extra={"model": "m.joblib"}))


def test_adding_a_matcher_is_one_file(one_more_file):
    assert "lastchar" in registry.names(automatic_only=True)
    assert registry.kind("lastchar").label == "last character"
    base = ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs" / "TEAMA-CS-CS-01-T.xml"),
            "--format", "json"]
    plain = CliRunner().invoke(main, base + ["--matcher", "lastchar"])
    assert plain.exit_code == 0, plain.output
    skipped = CliRunner().invoke(main, base + ["--matcher", "lastchar", "--matcher-option", "skip=N001"])
    assert skipped.exit_code == 0, skipped.output
    matched = [sum(t["matched"] for t in json.loads(r.stdout)["runs"][0]["topics"]) for r in (plain, skipped)]
    assert matched[1] < matched[0]  # N001 matched somewhere with the last character, and not when skipped
    assert Settings("lastchar", matcher_options={"skip": "N01"}).describe()["options"] == {"skip": "N01"}
    assert Settings("lastchar").describe()["theta"] is None  # it reads no theta
    refused = CliRunner().invoke(main, base + ["--matcher", "lastchar", "--matcher-option", "depth=2"])
    assert refused.exit_code == 2 and "takes no option depth" in refused.output and "skip" in refused.output
    bad = CliRunner().invoke(main, base + ["--matcher", "lastchar", "--matcher-option", "skip"])
    assert bad.exit_code == 2 and "NAME=VALUE" in bad.output
    probed = CliRunner().invoke(main, ["metaeval", "adversarial", "--gold", str(CS / "gold.xml"), "--format", "json"])
    assert "lastchar" in json.loads(probed.stdout)["matchers"]  # the probes take every automatic matcher


PLUGIN_WITH_A_DESCRIPTOR = ONE_FILE.replace('name="lastchar"', 'name="lastcharplugin"')


def test_a_plugin_registers_with_the_same_descriptor(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "toy_kind-0.1.dist-info").mkdir(parents=True)
    (site / "toy_kind.py").write_text(PLUGIN_WITH_A_DESCRIPTOR, encoding="utf-8")
    (site / "toy_kind-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-kind\nVersion: 0.1\n",
                                                              encoding="utf-8")
    (site / "toy_kind-0.1.dist-info" / "entry_points.txt").write_text(
        "[sepia.matchers]\nlastcharplugin = toy_kind:KIND\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    assert registry.kind("lastcharplugin").extra == {"skip": "a nugget ID that never matches"}
    assert registry.names()[-1] == "lastcharplugin"
    made = registry.make("lastcharplugin", MatcherOptions(extra={"skip": "N02"}))
    assert made.skip == "N02"
