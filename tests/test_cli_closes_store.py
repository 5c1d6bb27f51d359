"""Every command closes the store it opens, when it succeeds and when it stops on an error: no
connection is left in an engine's pool behind it (on PostgreSQL each counts against max_connections)."""
import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.resources import resource_dir
from sepia.store.db import Store

CS = resource_dir("corpora") / "cs"
RUN = CS / "runs" / "TEAMA-CS-CS-01-T.xml"


@pytest.fixture
def opened(monkeypatch):
    """The stores opened from now on."""
    stores: list[Store] = []
    open_store = Store.__init__

    def recording(self, *args, **kwargs):
        open_store(self, *args, **kwargs)
        stores.append(self)

    monkeypatch.setattr(Store, "__init__", recording)
    return stores


def run(*args):
    return CliRunner().invoke(main, list(map(str, args)))


def assert_closed(stores: list[Store]) -> None:
    assert stores, "the command opened no store"
    for store in stores:
        pool = store.engine.pool
        assert (pool.checkedin(), pool.checkedout()) == (0, 0), "a store left open"


# (arguments, exit code): what succeeds, what stops on a refusal raised inside the store's `with`
EMPTY_STORE = [
    (["db", "upgrade"], 0),
    (["db", "info"], 0),
    (["import", CS / "topics.xml"], 0),
    (["import", RUN, CS / "judgments.tsv"], 1),  # judgments for answers not stored
    (["export", "topics"], 0),
    (["export", "run", "NOPE-CS-CS-01-T"], 2),
    (["pool", "export", "nope"], 1),
    (["pool", "plan", "nope"], 1),
    (["control", "accuracy"], 0),
    (["corpus", "stats"], 0),
    (["corpus", "show", "NOPE"], 1),
    (["evaluate", "--store"], 1),
    (["evaluate-ir4qa", "--store"], 1),
    (["evaluate-qa", "--store"], 1),
    (["nuggetize", "--topic", "NOPE", "--matcher-option", "base_url=http://127.0.0.1:9/v1"], 1),
    (["corpus", "add", "CS", "--no-progress", CS / "docs"], 0),
    (["index", "stats"], 0),
    (["index", "build", "--no-progress"], 1),  # no documents stored
]


@pytest.mark.parametrize("args, code", EMPTY_STORE,
                         ids=[" ".join(getattr(a, "name", a) for a in args) for args, _ in EMPTY_STORE])
def test_a_command_on_an_empty_store_closes_it(opened, args, code):
    result = run(*args)
    assert result.exit_code == code, result.output
    assert_closed(opened)


def test_commands_that_score_and_pool_a_campaign_close_the_store(opened):
    assert run("import", CS / "topics.xml", CS / "gold.xml", *sorted((CS / "runs").glob("*.xml")),
               CS / "judgments.tsv").exit_code == 0
    for args in (["evaluate", "--store", "--run-id", "TEAMA-CS-CS-01-T"],
                 ["pool", "build", "p", "--kind", "cclqa"],
                 ["pool", "export", "p"],
                 ["export", "judgments"]):
        result = run(*args)
        assert result.exit_code == 0, (args, result.output)
    assert len(opened) >= 5
    assert_closed(opened)
