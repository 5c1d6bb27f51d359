"""Passwords, the secret key, the logged-in user and the role check every view carries."""
from __future__ import annotations

import functools
import os
import re
import secrets
from pathlib import Path
from typing import Callable

from flask import abort, current_app, g, redirect, request, session, url_for
from flask_wtf.csrf import CSRFProtect, generate_csrf

from sepia import config, limits
from sepia.services import logins
from sepia.services.accounts import ROLES
from sepia.web.db import db

csrf = CSRFProtect()

ROLE_LABELS = {
    "organiser": "Organiser",
    "topic_developer": "Topic developer",
    "assessor": "Assessor",
    "participant": "Participant",
}


def load_secret_key() -> str:
    """SEPIA_SECRET_KEY, else a random key made once and kept in the data directory (mode 600)."""
    from_env = os.environ.get("SEPIA_SECRET_KEY")
    if from_env:
        return from_env
    path = config.sepia_home() / "secret_key"
    return _read_or_create_key(path)


KEY_RE = re.compile(r"[0-9a-f]{64}")


class SecretKeyError(RuntimeError):
    """The secret key file cannot be used; the message says what to do."""


def _read_or_create_key(path: Path) -> str:
    """The key in `path`, made if missing. The key is written to a temporary file and linked into
    place, so that no process (of several starting at once) ever reads it half-written."""
    if not path.exists():
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(secrets.token_hex(32) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.link(temporary, path)  # fails if another process linked its key first: theirs wins
        except FileExistsError:
            pass
        except OSError as error:
            raise SecretKeyError(f"Cannot write the secret key {path}: {error.strerror}. Free some "
                                 "space or set SEPIA_SECRET_KEY.") from error
        finally:
            temporary.unlink(missing_ok=True)
    key = path.read_text(encoding="ascii", errors="replace").strip()
    if not KEY_RE.fullmatch(key):
        raise SecretKeyError(f"The secret key file {path} is empty or damaged (was the disk full when it "
                             "was made?). Delete it and start again: a new key is made, and everyone "
                             "logs in again.")
    return key


# ---------------------------------------------------------------- the logged-in user

def load_current_user() -> None:
    """Before each request but for static files: the user of the session, if the session is still
    open on the server and the account still exists and is active."""
    g.user = None
    if request.endpoint == "static":
        return
    token = session.get("sid")
    if not isinstance(token, str):
        return
    g.user = logins.session_user(db(), token)
    if g.user is None:
        session.clear()


def log_in(user) -> None:
    """Open a session on the server and put its token in the (signed) cookie; the caller commits."""
    token = logins.open_session(db(), user, current_app.config["SESSION_HOURS"])
    session.clear()
    session["sid"] = token
    session.permanent = False


def log_out() -> None:
    """End the session on the server as well: a copy of the cookie is worth nothing after this."""
    token = session.get("sid")
    if isinstance(token, str):
        logins.close_session(db(), token)
    session.clear()


def token_required(*roles: str) -> Callable:
    """For the API: the user of a personal token (`Authorization: Bearer ...`), not of a session;
    a missing or revoked token gets 401, a user of another role 403. No CSRF: no cookie is used."""
    def decorate(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapped(*args, **kwargs):
            scheme, _, token = request.headers.get("Authorization", "").partition(" ")
            found = logins.token_holder(db(), token.strip()) if scheme.lower() == "bearer" and token.strip() else None
            if found is None:
                return {"accepted": False, "problems": ["No valid token: create one on your account page."]}, 401
            token_id, user = found
            if user.role not in roles:
                return {"accepted": False, "problems": ["Your role may not use this."]}, 403
            g.user = logins.current_user_of(user)
            answer = view(*args, **kwargs)
            logins.note_token_use(db(), token_id)
            return answer

        return csrf.exempt(_marked(wrapped, allowed_roles=frozenset(roles), token_auth=True))

    return decorate


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

        return _marked(wrapped, allowed_roles=frozenset(roles))

    return decorate


def any_user(view: Callable) -> Callable:
    """Every logged-in user, whatever the role."""
    return roles_required(*ROLES)(view)


def public(view: Callable) -> Callable:
    """Marks a view that needs no login (log-in page, static files), so tests can tell it is meant."""
    return _marked(view, allowed_roles=None)


def _marked(view: Callable, **marks) -> Callable:
    """The view with `marks` among its attributes: who it lets in (allowed_roles, None for everyone)
    and whether it takes tokens, which tests/test_web_permissions.py reads of every route."""
    vars(view).update(marks)
    return view


TEXT_LIMITS = {"nugget": limits.NUGGET_MAX_CHARS, "answer": limits.ANSWER_MAX_CHARS,
               "topic_field": limits.TOPIC_FIELD_MAX_CHARS}


def page_csrf_token() -> str:
    """The CSRF token of this request, for templates: flask_wtf makes it once a request but reads
    its settings again at every call, and a page may have a form for each of its items."""
    return g.get("csrf_token") or generate_csrf()


def template_globals() -> dict:
    return {"current_user": g.get("user"), "role_labels": ROLE_LABELS, "limits": TEXT_LIMITS}
