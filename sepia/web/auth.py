"""Logging in and out, and the start page that sends each role to its work."""
from __future__ import annotations

from flask import Blueprint, flash, g, redirect, render_template, request, url_for
from sqlalchemy import select

from sepia.store.models import User
from sepia.web.db import db
from sepia.web.security import any_user, log_in, log_out, public, verify_password

bp = Blueprint("auth", __name__)

START_PAGES = {
    "organiser": "votes.overview",
    "topic_developer": "topics.index",
    "assessor": "votes.index",
    "participant": "auth.participant_home",
}


def _safe_next(target: str | None) -> str | None:
    """Only paths on this site: an open redirect would let a crafted link bounce users elsewhere."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return None


@bp.route("/login", methods=["GET", "POST"])
@public
def login():
    if request.method == "POST":
        username = request.form.get("username", "").strip()
        password = request.form.get("password", "")
        user = db().scalars(select(User).where(User.username == username)).first()
        if user is None or not user.active or not verify_password(user, password):
            flash("Unknown user name or wrong password.", "error")
            return render_template("login.html", username=username), 401
        log_in(user)
        flash(f"Welcome, {user.display_name or user.username}.", "success")
        return redirect(_safe_next(request.args.get("next")) or url_for("auth.home"))
    if g.user is not None:
        return redirect(url_for("auth.home"))
    return render_template("login.html", username="")


@bp.route("/logout", methods=["POST"])
@public
def logout():
    log_out()
    flash("You are logged out.", "success")
    return redirect(url_for("auth.login"))


@bp.route("/")
@any_user
def home():
    return redirect(url_for(START_PAGES[g.user.role]))


@bp.route("/me")
@any_user
def participant_home():
    return render_template("me.html")
