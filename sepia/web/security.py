"""Passwords, the secret key, the logged-in user and the role check every view carries."""
from __future__ import annotations

import functools
import hashlib
import os
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Callable

from flask import abort, current_app, g, redirect, request, session, url_for
from flask_wtf.csrf import CSRFProtect, generate_csrf
from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.exc import DBAPIError
from werkzeug.security import check_password_hash, generate_password_hash

from sepia import config
from sepia.store.models import ROLES, ApiToken, LoginSession, Team, User, utcnow
from sepia.web import forms
from sepia.web.db import db

csrf = CSRFProtect()

ROLE_LABELS = {
    "organiser": "Organiser",
    "topic_developer": "Topic developer",
    "assessor": "Assessor",
    "participant": "Participant",
}
MIN_PASSWORD_LENGTH = 8


def hash_password(password: str) -> str:
    return generate_password_hash(password, method="scrypt")


def verify_password(user: User | None, password: str) -> bool:
    """Whether the password is the user's. An unknown user costs the same hash, so that the time
    of an answer does not tell which user names exist."""
    if user is None:
        check_password_hash(_stand_in_hash(), password)
        return False
    return check_password_hash(user.password_hash, password)


@functools.cache
def _stand_in_hash() -> str:
    return hash_password(secrets.token_hex(16))


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


def check_new_password(password: str) -> str | None:
    """An error message when a new password is too weak, else None."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"A password needs at least {MIN_PASSWORD_LENGTH} characters."
    return None


# ---------------------------------------------------------------- the logged-in user

@dataclass(frozen=True)
class CurrentUser:
    """The logged-in user as every request needs it (`g.user`, `current_user` in templates): read
    with the session in one query of plain columns, without loading the account's mapped object."""
    id: int
    username: str
    role: str
    display_name: str
    languages: str | None  # the target languages an assessor works in ("CS JA"); None: all
    team: str | None  # the team's name


_USER_COLUMNS = (User.__table__.c.id, User.__table__.c.username, User.__table__.c.role,
                 User.__table__.c.display_name, User.__table__.c.languages, Team.__table__.c.name)
# A Core statement on the tables (compiled once, cached): the ORM's per-query work is most of the
# cost of so small a query, and this one runs on every request.
_SESSION_USER = (
    select(*_USER_COLUMNS)
    .select_from(LoginSession.__table__
                 .join(User.__table__, User.__table__.c.id == LoginSession.__table__.c.user_id)
                 .outerjoin(Team.__table__, Team.__table__.c.id == User.__table__.c.team_id))
    .where(LoginSession.__table__.c.token_hash == bindparam("token_hash"),
           LoginSession.__table__.c.expires_at > bindparam("now"), User.__table__.c.active.is_(True)))


def load_current_user() -> None:
    """Before each request but for static files: the user of the session, if the session is still
    open on the server and the account still exists and is active."""
    g.user = None
    if request.endpoint == "static":
        return
    token = session.get("sid")
    if not isinstance(token, str):
        return
    row = db().connection().execute(_SESSION_USER, {"token_hash": digest(token), "now": utcnow()}).first()
    if row is None:
        session.clear()
        return
    g.user = CurrentUser(*row)


def current_user_of(user: User) -> CurrentUser:
    return CurrentUser(user.id, user.username, user.role, user.display_name, user.languages,
                       user.team.name if user.team else None)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def log_in(user: User) -> None:
    """Open a session on the server and put its token in the (signed) cookie; the caller commits."""
    # Old sessions of this account that have run out go now, so the table stays small.
    db().execute(delete(LoginSession).where(LoginSession.user_id == user.id, LoginSession.expires_at <= utcnow())
                 .execution_options(synchronize_session=False))
    token = secrets.token_urlsafe(32)
    hours = current_app.config["SESSION_HOURS"]
    db().add(LoginSession(user_id=user.id, token_hash=digest(token), expires_at=utcnow() + timedelta(hours=hours)))
    session.clear()
    session["sid"] = token
    session.permanent = False


def log_out() -> None:
    """End the session on the server as well: a copy of the cookie is worth nothing after this."""
    token = session.get("sid")
    if isinstance(token, str):
        db().execute(delete(LoginSession).where(LoginSession.token_hash == digest(token))
                     .execution_options(synchronize_session=False))
        db().commit()
    session.clear()


def token_required(*roles: str) -> Callable:
    """For the API: the user of a personal token (`Authorization: Bearer ...`), not of a session;
    a missing or revoked token gets 401, a user of another role 403. No CSRF: no cookie is used."""
    def decorate(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapped(*args, **kwargs):
            scheme, _, token = request.headers.get("Authorization", "").partition(" ")
            found = None
            if scheme.lower() == "bearer" and token.strip():
                found = db().scalar(select(ApiToken).where(ApiToken.token_hash == digest(token.strip())))
            user = db().get(User, found.user_id) if found is not None else None
            if found is None or user is None or not user.active:
                return {"accepted": False, "problems": ["No valid token: create one on your account page."]}, 401
            if user.role not in roles:
                return {"accepted": False, "problems": ["Your role may not use this."]}, 403
            token_id = found.id
            g.user = current_user_of(user)
            answer = view(*args, **kwargs)
            _note_use(token_id)
            return answer

        return csrf.exempt(_marked(wrapped, allowed_roles=frozenset(roles), token_auth=True))

    return decorate


def _note_use(token_id: int) -> None:
    """Record when a token was last used, in a transaction of its own after the view's: written
    before, it opened the write transaction (SQLite) or locked the token's row (PostgreSQL) while a
    16 MB run was validated, holding up every other writer, or every upload with the same token."""
    try:
        db().execute(update(ApiToken).where(ApiToken.id == token_id).values(last_used_at=utcnow()))
        db().commit()
    except DBAPIError:  # the view's answer stands: a busy or full store only loses this note
        db().rollback()


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


TEXT_LIMITS = {"nugget": forms.NUGGET_MAX_CHARS, "answer": forms.ANSWER_MAX_CHARS,
               "topic_field": forms.TOPIC_FIELD_MAX_CHARS}


def page_csrf_token() -> str:
    """The CSRF token of this request, for templates: flask_wtf makes it once a request but reads
    its settings again at every call, and a page may have a form for each of its items."""
    return g.get("csrf_token") or generate_csrf()


def template_globals() -> dict:
    return {"current_user": g.get("user"), "role_labels": ROLE_LABELS, "limits": TEXT_LIMITS}
