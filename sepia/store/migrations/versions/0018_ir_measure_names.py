"""IR4QA scores under the measure names that mean one thing: ir_measures' names are ir_measures'
measures, NTCIREVAL's carry `ntcir:` (docs/ir4qa-measures.md, docs/history.md)

The stored IR4QA scores (evaluation_result rows of IR4QA runs) and the measures their settings name
are renamed: `nDCG` (NTCIREVAL's original nDCG) becomes `ntcir:nDCG`, so that a stored value never
reads as ir_measures' nDCG; `Q`, `MSnDCG`, `nERR` become `ntcir:...`, `nERRexp` `sepia:nERRexp`;
`Recall`, `bpref`, `judged` ir_measures' spellings `R`, `Bpref`, `Judged`. Under the settings of
`--ntcireval-cutoff` (dropped from them), `AP@k` and `Q@k` below the cut-off were NTCIREVAL's and
become `ntcir:AP@k` and `ntcir:Q@k`; without it, `Q@k` below the cut-off divided by R, which no
measure does now: it keeps its name, which no longer parses, so it cannot be taken for another.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28
"""
import json
import re

from alembic import op
import sqlalchemy as sa


revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None

RENAMED = {"Q": "ntcir:Q", "nDCG": "ntcir:nDCG", "MSnDCG": "ntcir:MSnDCG", "nERR": "ntcir:nERR",
           "nERRexp": "sepia:nERRexp", "Recall": "R", "bpref": "Bpref", "judged": "Judged"}
NAME = re.compile(r"^([A-Za-z:]+)(?:@([0-9]+))?$")
IR4QA_ROWS = "run_id IN (SELECT id FROM run WHERE kind = 'ir4qa')"


def renamed(name: str, settings: dict) -> str:
    match = NAME.match(name)
    if not match:
        return name
    family, k = match.group(1), match.group(2)
    below_cutoff = k is not None and int(k) < int(settings.get("cutoff", 1000))
    if family in ("AP", "Q") and below_cutoff:
        if settings.get("ntcireval_cutoff"):
            family = "ntcir:" + family
        elif family == "Q":
            return name  # Q@k over R: no measure of that name now
    else:
        family = RENAMED.get(family, family)
    return family + (f"@{k}" if k is not None else "")


def upgrade() -> None:
    connection = op.get_bind()
    pairs = connection.execute(sa.text(
        f"SELECT DISTINCT measure, settings FROM evaluation_result WHERE {IR4QA_ROWS}")).all()
    changes = []
    for measure, settings in pairs:
        old = json.loads(settings)
        new = {k: v for k, v in old.items() if k != "ntcireval_cutoff"}
        if "measures" in new:
            new["measures"] = [renamed(m, old) for m in new["measures"]]
        change = {"measure": measure, "settings": settings, "new_measure": renamed(measure, old),
                  "new_settings": json.dumps(new, sort_keys=True)}
        if (change["new_measure"], change["new_settings"]) != (measure, settings):
            changes.append(change)
    if changes:
        connection.execute(sa.text(
            "UPDATE evaluation_result SET measure = :new_measure, settings = :new_settings "
            f"WHERE measure = :measure AND settings = :settings AND {IR4QA_ROWS}"), changes)


def downgrade() -> None:
    """The names back as far as they go: `ntcir:`, `sepia:` and ir_measures' spellings of the old
    measures; ir_measures' nDCG (computed on the levels) as MSnDCG, its formula."""
    back = {new: old for old, new in RENAMED.items()} | {"nDCG": "MSnDCG"}
    connection = op.get_bind()
    pairs = connection.execute(sa.text(
        f"SELECT DISTINCT measure, settings FROM evaluation_result WHERE {IR4QA_ROWS}")).all()

    def old_name(name: str) -> str:
        family, at, k = name.partition("@")
        return back.get(family, family) + at + k

    changes = []
    for measure, settings in pairs:
        kept = json.loads(settings)
        if "measures" in kept:
            kept["measures"] = [old_name(m) for m in kept["measures"]]
        changes.append({"measure": measure, "settings": settings, "old_measure": old_name(measure),
                        "old_settings": json.dumps(kept, sort_keys=True)})
    if changes:
        connection.execute(sa.text(
            "UPDATE evaluation_result SET measure = :old_measure, settings = :old_settings "
            f"WHERE measure = :measure AND settings = :settings AND {IR4QA_ROWS}"), changes)
