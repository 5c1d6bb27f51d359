"""The organisers' assessor page: who to train, trust or replace. Accuracy on control items (flagged
below a threshold), agreement with adjudication, Cohen's kappa per pair, lone dissent, items done,
seconds per item, and where disputes come from; CSV and JSON downloads; control items mixed into a
pool's queues from here."""
from __future__ import annotations

import csv
import io
import json

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from sepia.store import controls, quality
from sepia.services.assessors import control_counts, set_training
from sepia.services.pools import pool_by_id, pools_by_age
from sepia.web.db import db, found_or_404
from sepia.web.downloads import file_response
from sepia.web.security import roles_required

bp = Blueprint("assessors", __name__, url_prefix="/assessors")
DEFAULT_THRESHOLD = 0.8
TABLES = ("controls", "quality", "kappa", "disputes")


def _threshold() -> float:
    """The flag threshold asked for (an accuracy in [0, 1]); ValueError with a clear message otherwise."""
    raw = request.args.get("threshold", "").strip()
    if not raw:
        return DEFAULT_THRESHOLD
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"the flag threshold is an accuracy between 0 and 1, not {raw[:20]!r}") from None
    return controls.check_threshold(value)


@bp.route("/")
@roles_required("organiser")
def overview():
    try:
        threshold = _threshold()
    except ValueError as error:
        flash(f"{str(error)[0].upper()}{str(error)[1:]}; showing {DEFAULT_THRESHOLD:g}.", "error")
        threshold = DEFAULT_THRESHOLD
    found = quality.report(db(), threshold)
    assessors = {k: sorted({a for p in found["kappa"] if p["kind"] == k for a in (p["first"], p["second"])})
                 for k in ("vote", "match", "relevance")}
    pairs = {(p["kind"], p["first"], p["second"]): p for p in found["kappa"]}
    pairs |= {(k, b, a): p for (k, a, b), p in pairs.items()}
    pools = pools_by_age(db())
    counts = control_counts(db())
    return render_template("assessors/overview.html", report=found, assessors=assessors, pairs=pairs,
                           pools=pools, control_counts=counts, groups=("topic", "type", "lang", "run", "assessor"))


@bp.route("/report.json")
@roles_required("organiser")
def report_json():
    return file_response(json.dumps(quality.report(db(), _download_threshold()), ensure_ascii=False, indent=1),
                         "assessors.json", "application/json")


@roles_required("organiser")
def table_csv(key: str):
    rows = quality.report(db(), _download_threshold())[key]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=quality.columns(key), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return file_response(out.getvalue(), f"assessors-{key}.csv", "text/csv; charset=utf-8")


for _table in TABLES:  # one fixed URL a table: /assessors/quality.csv
    bp.add_url_rule(f"/{_table}.csv", "table_csv", table_csv, defaults={"key": _table})


def _download_threshold() -> float:
    try:
        return _threshold()
    except ValueError as error:
        abort(400, f"{str(error)[0].upper()}{str(error)[1:]}.")


@bp.route("/controls/mix", methods=["POST"])
@roles_required("organiser")
def mix():
    """Mix control items into a pool's queues at a rate, and set whether the pool trains."""
    pool = found_or_404(pool_by_id(db(), request.form.get("pool", type=int) or 0), "pool")
    try:
        try:
            percent = float(request.form.get("rate", ""))
        except ValueError:
            percent = -1.0
        if not 0 <= percent < 100:
            raise ValueError("the share of control items is a percentage of each queue, from 0 up to "
                             "(not including) 100")
        added = controls.mix_controls(db(), pool, percent / 100)
        set_training(pool, request.form.get("training") == "1")
        db().commit()
    except ValueError as error:
        db().rollback()
        flash(f"{pool.name}: {error}.", "error")
        return redirect(url_for("assessors.overview") + "#controls")
    mode = "training: the expected answer is shown after each control item" if pool.training else "blind"
    flash(f"{pool.name}: {added} control item(s) mixed into its queues ({mode}).", "success")
    return redirect(url_for("assessors.overview") + "#controls")
