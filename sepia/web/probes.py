"""Adversarial probes for organisers: `sepia metaeval adversarial` on the stored gold standard, with
every automatic matcher and both number rules, as a table, a chart and a TSV download."""
from __future__ import annotations

import base64

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from sepia.metaeval.probes import PROBES
from sepia.web.db import db
from sepia.web.security import roles_required

bp = Blueprint("probes", __name__, url_prefix="/results/probes")


def _report():
    """The probes on the stored gold standard; None (with a message) when it has no nuggets."""
    from sepia.metaeval.adversarial import run_probes
    from sepia.store.exchange.gold import export_gold

    gold = export_gold(db())
    db().close()  # the probes take a while and need nothing more from the store
    try:
        return run_probes(gold)
    except ValueError as problem:
        flash(f"No probes run: {problem}.", "error")
        return None


@bp.route("/")
@roles_required("organiser")
def page():
    return render_template("results/probes.html", report=None, probes=PROBES)


@bp.route("/", methods=["POST"])
@roles_required("organiser")
def run():
    """The probes, as the page (table and chart) or, with format=tsv, as a TSV download."""
    from sepia.metaeval.adversarial_report import fooled_png, fooled_tsv

    report = _report()
    if report is None:
        return redirect(url_for("probes.page"))
    if request.form.get("format") == "tsv":
        return Response(fooled_tsv(report.rows), mimetype="text/tab-separated-values; charset=utf-8",
                        headers={"Content-Disposition": "attachment; filename=fooled.tsv"})
    cells = {(r.matcher, r.probe): r for r in report.rows}
    chart = base64.b64encode(fooled_png(report.rows)).decode("ascii")
    return render_template("results/probes.html", report=report, probes=PROBES, cells=cells,
                           shown=list(dict.fromkeys(r.probe for r in report.rows)), chart=chart)
