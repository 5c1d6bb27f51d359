"""Organisers manage accounts: list, add, change role or team, reset a password, deactivate."""
from __future__ import annotations

from flask import Blueprint, flash, g, redirect, render_template, request, url_for
from sepia.services.accounts import (ROLES, AccountError, account, accounts, checked_display_name, create_user,
                                     parse_languages, set_password, team_named)
from sepia.web.db import db, found_or_404
from sepia.web.security import roles_required

bp = Blueprint("admin", __name__, url_prefix="/admin")


def _users():
    return accounts(db())


@bp.route("/users")
@roles_required("organiser")
def users():
    return render_template("admin/users.html", users=_users(), roles=ROLES, form={})


@bp.route("/users", methods=["POST"])
@roles_required("organiser")
def add_user():
    form = request.form
    try:
        user = create_user(db(), form.get("username", ""), form.get("password", ""),
                           form.get("role", ""), team=form.get("team"),
                           display_name=form.get("display_name", ""))
        db().commit()
    except AccountError as error:
        db().rollback()
        flash(str(error), "error")
        return render_template("admin/users.html", users=_users(), roles=ROLES, form=form), 422
    flash(f"Account {user.username} ({user.role}) created.", "success")
    return redirect(url_for("admin.users"))


@bp.route("/users/<int:user_id>", methods=["POST"])
@roles_required("organiser")
def update_user(user_id: int):
    user = found_or_404(account(db(), user_id), "account")
    form = request.form
    try:
        role = form.get("role", user.role)
        if role not in ROLES:
            raise AccountError(f"Unknown role {role!r}.")
        if user.id == g.user.id and (role != "organiser" or "active" not in form):
            raise AccountError("You cannot take away your own organiser rights or deactivate yourself.")
        team = (form.get("team") or "").strip()
        if role == "participant" and not team:
            raise AccountError("A participant belongs to a team: give its name.")
        user.role = role
        user.team = team_named(db(), team) if role == "participant" else None
        user.display_name = checked_display_name(form.get("display_name", user.display_name))
        user.languages = parse_languages(form.get("languages", ""))
        user.active = "active" in form
        if form.get("password"):
            set_password(user, form["password"])
        db().commit()
    except AccountError as error:
        db().rollback()
        flash(f"{user.username}: {error}", "error")
        return render_template("admin/users.html", users=_users(), roles=ROLES, form={}), 422
    flash(f"Account {user.username} saved.", "success")
    return redirect(url_for("admin.users"))
