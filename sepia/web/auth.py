"""Logging in and out, and the start page that sends each role to its work."""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, g, make_response, redirect, render_template, request, url_for
from sepia.services.accounts import account_named, verify_password
from sepia.web.db import db
from sepia.web.security import any_user, log_in, log_out, public

bp = Blueprint("auth", __name__)

START_PAGES = {
    "organiser": "votes.overview",
    "topic_developer": "topics.index",
    "assessor": "votes.index",
    "participant": "participate.home",
}


def safe_next(target: str | None) -> str | None:
    """Only paths on this site: an open redirect would let a crafted link bounce users elsewhere.

    The target is read as a browser reads a Location header (the URL standard): tabs and newlines
    anywhere are dropped, control characters and spaces at the ends stripped, and a backslash is a
    slash. What is left must be a path that starts with one slash."""
    if not target:
        return None
    target = target.translate(URL_IGNORED).strip(URL_STRIPPED).replace("\\", "/")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    return target


URL_IGNORED = dict.fromkeys(map(ord, "\t\n\r"))
URL_STRIPPED = "".join(map(chr, range(0x21)))


@bp.route("/login", methods=["GET", "POST"])
@public
def login():
    if request.method == "POST":
        username = request.form.get("username", "").strip()
        password = request.form.get("password", "")
        address = request.remote_addr or "unknown"
        throttle = current_app.extensions["sepia_throttle"]
        wait = throttle.retry_after(db(), username, address)
        if wait is not None:
            minutes = -(-int(wait.total_seconds()) // 60)
            flash(f"Too many failed log-ins for this account or from this address. Try again in "
                  f"{minutes} minute{'s' if minutes > 1 else ''}, or ask an organiser to reset your password.",
                  "error")
            response = make_response(render_template("login.html", username=username), 429)
            response.headers["Retry-After"] = str(int(wait.total_seconds()))
            return response
        user = account_named(db(), username)
        if not verify_password(user, password) or user is None or not user.active:
            throttle.record_failure(db(), username, address)
            db().commit()
            flash("Unknown user name or wrong password.", "error")
            return render_template("login.html", username=username), 401
        throttle.forget_account(db(), username)
        log_in(user)
        db().commit()
        flash(f"Welcome, {user.display_name or user.username}.", "success")
        return redirect(safe_next(request.args.get("next")) or url_for("auth.home"))
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
