"""docs/architecture.md's examples, run: each adds one of its kind the way the page says, and the
callers of the registry then offer it."""
from __future__ import annotations

import dataclasses
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from web_helpers import browser_for, template_database

from sepia import cli
from sepia.formats import registry as formats
from sepia.formats.errors import FormatError
from sepia.formats.model import LangText
from sepia.formats.read import read_bytes, read_file
from sepia.formats.write import to_xml
from sepia.ir4qa import registry
from sepia.matchers.base import MatcherKind, MatcherOptions
from sepia.search import engine
from sepia.search.base import BaseEngine
from sepia.web import create_app, pages

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
EXAMPLES = dict(re.findall(r"<!-- example: (\S+) -->\n```(?:python|xml)\n(.*?)```", PAGE, re.S))


def test_every_example_is_found():
    assert set(EXAMPLES) == {"command", "command-entry", "matcher", "measure", "page", "page-entry", "engine-entry",
                             "format-xsd", "format", "format-entry", "format-file"}


def module_of(name: str, example: str, monkeypatch) -> types.ModuleType:
    """The example as the module it says it is, importable by its name for this test."""
    module = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, module)  # before it runs: a dataclass looks its module up
    exec(compile(EXAMPLES[example], f"docs/architecture.md:{example}", "exec"), module.__dict__)
    return module


def dict_entry(example: str, namespace: dict) -> tuple:
    """The key and value of an example's line of a dict, evaluated where the dict is."""
    return next(iter(eval("{" + EXAMPLES[example] + "}", dict(namespace)).items()))


def tuple_entry(example: str, namespace: dict):
    """An example's line of a tuple, evaluated where the tuple is."""
    return eval("(" + EXAMPLES[example] + ")", dict(namespace))[0]


def test_a_command(monkeypatch):
    module_of("sepia.commands.hello", "command", monkeypatch)
    name, line = dict_entry("command-entry", vars(cli))
    monkeypatch.setitem(cli.COMMANDS, name, line)
    assert CliRunner().invoke(cli.main, ["hello", "Ada"]).output == "Hello, Ada.\n"
    assert re.search(r"\n  hello +Greet someone.\n", CliRunner().invoke(cli.main, ["--help"]).output)


def test_a_matcher(monkeypatch):
    kind = module_of("sepia.matchers.prefix", "matcher", monkeypatch).KIND
    assert isinstance(kind, MatcherKind) and kind.title == "automatic (prefix)"
    nugget, other = types.SimpleNamespace(text="GDP"), types.SimpleNamespace(text="2008")
    answers = [LangText("EN", "GDP grew in 2008.")]
    assert kind.make(MatcherOptions()).scores("R", "T", [nugget, other], answers) == [1.0, 0.0]


def test_an_ir_measure(monkeypatch):
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    exec(EXAMPLES["measure"], dict(vars(registry)))
    topic, ranked = registry.Topic([1.0, 1.0, 1.0], nonrelevant=1), registry.Ranked(np.array([1.0, 0.0, 2.0, -1.0]))
    assert registry.parse_measures("hits@2,hits") == ("hits@2", "hits")
    assert registry.compute("hits@2", topic, ranked) == 1 and registry.compute("hits", topic, ranked) == 2


def test_a_page(monkeypatch, tmp_path):
    module_of("sepia.web.glossary", "page", monkeypatch)
    monkeypatch.setattr(pages, "PAGES", (*pages.PAGES, tuple_entry("page-entry", vars(pages))))
    monkeypatch.setattr(pages, "nav_links", pages.nav_links.__wrapped__)  # the links of the PAGES above
    (tmp_path / "web.db").write_bytes(Path(template_database()).read_bytes())
    site = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'web.db'}", "SECRET_KEY": "test",
                       "TESTING": True, "SESSION_COOKIE_SECURE": False})
    for user, sees in (("dev", True), ("org", True), ("as1", False)):
        browser = browser_for(site, user)
        home = browser.get("/", follow_redirects=True).get_data(as_text=True)
        assert ('href="/glossary/"' in home) == sees, user
        assert browser.get("/glossary/").status_code == (200 if sees else 403)
    site.extensions["sepia_store"].dispose()


def test_a_search_engine(monkeypatch, tmp_path):
    class MemoryEngine(BaseEngine):
        name = "memory"

    monkeypatch.setitem(sys.modules, "sepia.search.memory_engine", types.SimpleNamespace(MemoryEngine=MemoryEngine))
    name, target = dict_entry("engine-entry", vars(engine))
    monkeypatch.setitem(engine.ENGINES, name, target)
    engine.remember_engine(tmp_path, "memory")
    assert engine.configured_engine(tmp_path) == "memory"
    assert isinstance(engine.open_engine(tmp_path).current, MemoryEngine)


def test_an_exchange_format(monkeypatch, tmp_path):
    notes = module_of("sepia.formats.exchange.notes", "format", monkeypatch)
    (tmp_path / "notes.xsd").write_text(EXAMPLES["format-xsd"], encoding="utf-8")
    entry = tuple_entry("format-entry", {**vars(formats), "notes": notes})
    # the one liberty: the schema is read from tmp_path rather than from schemas/notes.xsd
    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, dataclasses.replace(entry, xsd=tmp_path / "notes.xsd")))
    path = tmp_path / "notes.xml"
    path.write_text(EXAMPLES["format-file"], encoding="utf-8")
    read = read_file(path)
    assert read == notes.Notes({"ACLIA2-CS-0001": ["Ask the assessors about the 2008 figures."]})
    assert to_xml(read) == path.read_bytes()
    twice = EXAMPLES["format-file"].replace("</TOPIC>", '</TOPIC><TOPIC ID="ACLIA2-CS-0001"><NOTE/></TOPIC>', 1)
    with pytest.raises(FormatError, match="topic ACLIA2-CS-0001 appears more than once"):
        read_bytes(twice.encode())
    with pytest.raises(FormatError, match=r"Element 'MEMO'.*\(notes schema\)"):
        read_bytes(EXAMPLES["format-file"].replace("NOTE>", "MEMO>").encode(), "notes")
    checked = CliRunner().invoke(cli.main, ["validate", str(path)])
    assert checked.exit_code == 0 and f"{path}: valid notes file" in checked.output
    imported = CliRunner().invoke(cli.main, ["import", str(path)])
    assert imported.exit_code == 1 and "notes files are not kept in the store" in imported.output


@pytest.mark.parametrize("table", ["sepia/cli.py", "sepia/web/pages.py", "sepia/search/engine.py",
                                   "sepia/ir4qa/registry.py", "sepia/formats/registry.py"])
def test_the_tables_the_page_names_are_where_it_says(table):
    assert f"`{table}`" in PAGE and (Path(__file__).resolve().parents[1] / table).exists()
