"""Passwords, the secret key, the logged-in user and the role check every view carries."""
from __future__ import annotations

import functools
import hashlib
import os
import secrets
from pathlib import Path
from typing import Callable

from flask import abort, g, redirect, request, session, url_for
from werkzeug.security import check_password_hash, generate_password_hash

from sepia import config
from sepia.store.models import ROLES, User
from sepia.web.db import db

ROLE_LABELS = {
    "organiser": "Organiser",
    "topic_developer": "Topic developer",
    "assessor": "Assessor",
    "participant": "Participant",
}
MIN_PASSWORD_LENGTH = 8


def hash_password(password: str) -> str:
    return generate_password_hash(password, method="scrypt")


def verify_password(user: User, password: str) -> bool:
    return check_password_hash(user.password_hash, password)


def load_secret_key() -> str:
    """SEPIA_SECRET_KEY, else a random key made once and kept in the data directory (mode 600)."""
    from_env = os.environ.get("SEPIA_SECRET_KEY")
    if from_env:
        return from_env
    path = config.sepia_home() / "secret_key"
    return _read_or_create_key(path)


def _read_or_create_key(path: Path) -> str:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="ascii").strip()
    key = secrets.token_hex(32)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key + "\n")
    return key


def check_new_password(password: str) -> str | None:
    """An error message when a new password is too weak, else None."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"A password needs at least {MIN_PASSWORD_LENGTH} characters."
    return None


def check_role(role: str) -> str | None:
    return None if role in ROLES else f"Unknown role {role!r}; choose one of {', '.join(ROLES)}."


# ---------------------------------------------------------------- the logged-in user

def load_current_user() -> None:
    """Before each request: the user of the session, if the account still exists and is active."""
    g.user = None
    user_id = session.get("user_id")
    if user_id is None:
        return
    user = db().get(User, user_id)
    if user is None or not user.active or session.get("pw") != _password_stamp(user):
        session.clear()
        return
    g.user = user


def _password_stamp(user: User) -> str:
    # The session carries a digest of the password hash: changing a password ends old sessions.
    # (A digest, because the signed session cookie is readable by its holder.)
    return hashlib.sha256(user.password_hash.encode()).hexdigest()[:16]


def log_in(user: User) -> None:
    session.clear()
    session["user_id"] = user.id
    session["pw"] = _password_stamp(user)
    session.permanent = False


def log_out() -> None:
    session.clear()


def roles_required(*roles: str) -> Callable:
    """Let only logged-in users of these roles in: others get 403, anonymous users the login page."""
    unknown = set(roles) - set(ROLES)
    if unknown:
        raise ValueError(f"unknown roles {unknown}")

    def decorate(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapped(*args, **kwargs):
            if g.user is None:
                if request.method == "GET" and not request.is_json:
                    return redirect(url_for("auth.login", next=request.full_path))
                abort(401)
            if g.user.role not in roles:
                abort(403)
            return view(*args, **kwargs)

        wrapped.allowed_roles = frozenset(roles)
        return wrapped

    return decorate


def any_user(view: Callable) -> Callable:
    """Every logged-in user, whatever the role."""
    return roles_required(*ROLES)(view)


def public(view: Callable) -> Callable:
    """Marks a view that needs no login (log-in page, static files), so tests can tell it is meant."""
    view.allowed_roles = None
    return view


def template_globals() -> dict:
    return {"current_user": g.get("user"), "role_labels": ROLE_LABELS}
