"""Stored scores are kept and found by a stable identity of their settings (`settings_key` of their
values), not by the text `Settings.describe()` shows; migration 0019 gives the scores kept before
the same keys."""
from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest
from sqlalchemy import text

from sepia.campaign import results, task_results
from sepia.text import tokenize
from sepia.scoring.evaluate import Settings
from sepia.text.tokenize import Tokenizer
from sepia.store.db import Store, make_engine, upgrade
from sepia.store.results import settings_key, shown

MIGRATION = Path(__file__).resolve().parents[1] / "sepia/store/migrations/versions/0019_settings_identity.py"


def migration():
    spec = importlib.util.spec_from_file_location("settings_identity", MIGRATION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SAMPLES = [
    Settings(),
    Settings(matcher="human"),
    Settings(matcher="human", partial=0.25, beta=1),
    Settings(theta=0.7, tokenizer=Tokenizer(stem=True, stopwords=True), as_set=True),
    Settings(allowance=24.0),
    Settings(allowance_per_type={"PERSON": 3.5, "DEFINITION": 24.9}),
    Settings(allowance_per_type={"DEFINITION": 24.9}, allowance=10.0, weights="uniform", depth=5),
    Settings(matcher="softmatch", numbers="strict"),
]


def test_the_key_is_the_sha256_of_canonical_json():
    # by hand: keys sorted, numbers as floats, no spaces, non-ASCII kept
    expected = hashlib.sha256('{"a":[true,null,"禽"],"b":3.0}'.encode("utf-8")).hexdigest()
    assert settings_key({"b": 3, "a": [True, None, "禽"]}) == expected
    assert settings_key({"b": 3.0, "a": (True, None, "禽")}) == expected
    assert settings_key({"b": 3.5, "a": [True, None, "禽"]}) != expected


def test_the_identity_is_the_values_not_the_text_shown(monkeypatch):
    before = [settings_key(s.identity()) for s in SAMPLES]
    assert len(set(before)) == len(SAMPLES)  # different settings, different keys
    monkeypatch.setattr(tokenize.Tokenizer, "describe", lambda self: "words, reworded")
    assert [settings_key(s.identity()) for s in SAMPLES] == before
    assert Settings(allowance_per_type={"PERSON": 3.5, "DEFINITION": 24.9}).identity()["allowance"] == {
        "per_type": {"DEFINITION": 24.9, "PERSON": 3.5}, "all": None}
    assert Settings(as_set=True).identity()["tokens"] == {"stem": False, "stopwords": False, "as_set": True}


def test_a_matcher_option_it_does_not_take_changes_nothing():
    assert settings_key(Settings(matcher="human", theta=0.9).identity()) == settings_key(
        Settings(matcher="human").identity())
    assert settings_key(Settings(theta=0.9).identity()) != settings_key(Settings().identity())


@pytest.mark.parametrize("settings", SAMPLES)
def test_the_migration_reads_every_description_back_to_its_values(settings):
    old = shown(settings.describe())  # what the store kept before 0019
    assert migration().identity("cclqa", old) == json.loads(json.dumps(settings.identity()))
    assert migration().settings_key(migration().identity("cclqa", old)) == settings_key(settings.identity())


def test_a_description_it_cannot_read_keeps_its_text():
    odd = '{"allowance": "C = something else", "matcher": "binarized", "tokens": "t"}'
    assert migration().identity("cclqa", odd) == json.loads(odd)


IR4QA = {"gains": "1:2:3", "cutoff": 1000, "beta": 1}
OLD_ROWS = [
    "INSERT INTO run (id, run_id, kind, team, source_lang, target_lang, priority, variant, description, submitted_at)"
    " VALUES (1, 'T-CS-CS-01-T', 'cclqa', 'T', 'CS', 'CS', 1, 'T', '', '2026-01-01')",
    "INSERT INTO run (id, run_id, kind, team, source_lang, target_lang, priority, variant, description, submitted_at)"
    " VALUES (2, 'T-CS-CS-01-T', 'ir4qa', 'T', 'CS', 'CS', 1, 'T', '', '2026-01-01')",
]


def old_score(pk: int, run: int, measure: str, matcher: str | None, settings: str, value: float) -> tuple:
    return ("INSERT INTO evaluation_result (id, run_id, measure, matcher, settings, value, created_at)"
            " VALUES (:id, :run, :measure, :matcher, :settings, :value, '2026-01-01')",
            {"id": pk, "run": run, "measure": measure, "matcher": matcher, "settings": settings, "value": value})


def test_a_store_holding_old_keys_finds_its_scores_after_the_migration(store_url):
    human, released = Settings(matcher="human"), Settings(matcher="human", allowance_per_type={"PERSON": 3.5})
    engine = make_engine(store_url)
    upgrade(engine, "0018")  # the revision before 0019
    with engine.begin() as connection:
        for row in OLD_ROWS:
            connection.execute(text(row))
        for statement, values in (old_score(1, 1, "F3", "human", shown(human.describe()), 0.4),
                                  old_score(2, 1, "F3", "human", shown(released.describe()), 0.3),
                                  old_score(3, 2, "AP", None, shown(IR4QA), 0.2)):
            connection.execute(text(statement), values)
        connection.execute(text("INSERT INTO released_settings (id, settings, label, released_by, released_at) "
                                "VALUES (1, :settings, 'PERSON at 3.5', 'org', '2026-01-01')"),
                           {"settings": shown(released.describe())})
    upgrade(engine)
    with engine.connect() as connection:
        keys = dict(connection.execute(text("SELECT id, settings_id FROM evaluation_result")).all())
        released_key = connection.execute(text("SELECT settings_id FROM released_settings")).scalar()
    engine.dispose()
    assert keys == {1: settings_key(human.identity()), 2: settings_key(released.identity()), 3: settings_key(IR4QA)}
    assert released_key == settings_key(released.identity())
    store = Store(store_url)
    with store.transaction() as session:
        assert [r.score for r in results.load_results(session, "human")] == [0.4]
        assert [r.score for r in results.load_results(session, "human", settings=released)] == [0.3]
        assert [[r.score for r in runs] for runs in results.load_released(session).values()] == [[0.3]]
        found = task_results.load(session, "ir4qa")
        assert found is not None and found.settings == IR4QA and [r.means for r in found.runs] == [{"AP": 0.2}]
    store.dispose()


def test_a_save_and_a_release_describe_the_settings_once_under_the_same_keys(store, monkeypatch):
    """Describing an LLM matcher's settings asks its server for the model: a save does it once."""
    from sepia.campaign import results_store
    from sepia.store.models import ReleasedSettings
    from sepia.store.results import replace_cclqa_scores

    for settings in SAMPLES:
        assert settings.identity(settings.describe()) == settings.identity()
    settings = SAMPLES[-1]
    key, text = settings_key(settings.identity()), shown(settings.describe())
    calls = []
    describe = Settings.describe
    monkeypatch.setattr(Settings, "describe", lambda self: calls.append(self) or describe(self))
    with store.transaction() as session:
        replace_cclqa_scores(session, [], settings)
        assert len(calls) == 1
        results_store.release(session, settings, "strict numbers", "org")
        assert len(calls) == 2
    with store.transaction() as session:
        row = session.query(ReleasedSettings).one()
        assert (row.settings_id, row.settings) == (key, text)
