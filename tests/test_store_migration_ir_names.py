"""Migration 0018 renames the stored IR4QA scores so that no stored value reads as another measure:
NTCIREVAL's nDCG and Q under `ntcir:`, ir_measures' spellings of the others, the `--ntcireval-cutoff`
settings' AP@k and Q@k as `ntcir:` and the option dropped from the settings; CCLQA rows untouched."""
from __future__ import annotations

import json

from sqlalchemy import text

from sepia.store.db import make_engine, upgrade

RUNS = [(1, "T-CS-CS-01-T", "ir4qa"), (2, "T-CS-CS-02-T", "cclqa")]
FLAGGED = {"gains": "1:2", "cutoff": 1000, "beta": 1, "ntcireval_cutoff": True,
           "measures": ["AP", "Q", "nDCG", "AP@5", "Q@5", "bpref"]}
PLAIN = {"gains": "1:2", "cutoff": 1000, "beta": 1, "measures": ["AP", "Q", "nDCG", "Q@5", "Recall@10", "judged@3",
                                                                    "MSnDCG@10", "nERR@10", "nERRexp@10"]}
ROWS = [(1, "nDCG", {"gains": "1:2", "cutoff": 1000, "beta": 1}), (1, "Q", {"gains": "1:2", "cutoff": 1000, "beta": 1}),
        *((1, m, FLAGGED) for m in FLAGGED["measures"]), *((1, m, PLAIN) for m in PLAIN["measures"]),
        (2, "nDCG", {"matcher": "binarized"})]


def test_stored_ir4qa_scores_take_the_names_that_mean_them(store_url):
    engine = make_engine(store_url)
    upgrade(engine, "0017")
    with engine.begin() as connection:
        for id_, run_id, kind in RUNS:
            connection.execute(text(
                "INSERT INTO run (id, run_id, kind, team, source_lang, target_lang, priority, variant, description, "
                "submitted_at) VALUES (:id, :run_id, :kind, 'T', 'CS', 'CS', 1, 'T', '', '2026-01-01')"),
                {"id": id_, "run_id": run_id, "kind": kind})
        connection.execute(text("INSERT INTO evaluation_result (run_id, measure, settings, value, created_at) "
                                "VALUES (:run, :measure, :settings, 0.5, '2026-01-01')"),
                           [{"run": r, "measure": m, "settings": json.dumps(s, sort_keys=True)} for r, m, s in ROWS])
    upgrade(engine)
    with engine.connect() as connection:
        found = [(r, m, json.loads(s)) for r, m, s in connection.execute(text(
            "SELECT run_id, measure, settings FROM evaluation_result ORDER BY id"))]
    engine.dispose()
    flagged = {k: v for k, v in FLAGGED.items() if k != "ntcireval_cutoff"}
    flagged["measures"] = ["AP", "ntcir:Q", "ntcir:nDCG", "ntcir:AP@5", "ntcir:Q@5", "Bpref"]
    plain = {**PLAIN, "measures": ["AP", "ntcir:Q", "ntcir:nDCG", "Q@5", "R@10", "Judged@3", "ntcir:MSnDCG@10",
                                   "ntcir:nERR@10", "sepia:nERRexp@10"]}
    default = {"gains": "1:2", "cutoff": 1000, "beta": 1}
    assert found == [(1, "ntcir:nDCG", default), (1, "ntcir:Q", default),
                     *((1, m, flagged) for m in flagged["measures"]), *((1, m, plain) for m in plain["measures"]),
                     (2, "nDCG", {"matcher": "binarized"})]  # Q@5 over R keeps a name that no longer parses
