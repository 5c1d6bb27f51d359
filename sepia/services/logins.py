"""Who is logged in: sessions open on the server (their token's digest in login_session) and
personal API tokens, read and written for the web tool's security checks (sepia.web.security) and
the participants' token page."""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from sepia.store.models import ApiToken, LoginSession, Team, User, utcnow


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


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def session_user(session: Session, token: str) -> CurrentUser | None:
    """The user of a session still open on the server, if the account still exists and is active."""
    row = session.connection().execute(_SESSION_USER, {"token_hash": digest(token), "now": utcnow()}).first()
    return None if row is None else CurrentUser(*row)


def current_user_of(user: User) -> CurrentUser:
    return CurrentUser(user.id, user.username, user.role, user.display_name, user.languages,
                       user.team.name if user.team else None)


def open_session(session: Session, user: User, hours: float) -> str:
    """Open a session on the server for `hours`; its token (for the cookie). The caller commits."""
    # Old sessions of this account that have run out go now, so the table stays small.
    session.execute(delete(LoginSession).where(LoginSession.user_id == user.id, LoginSession.expires_at <= utcnow())
                    .execution_options(synchronize_session=False))
    token = secrets.token_urlsafe(32)
    session.add(LoginSession(user_id=user.id, token_hash=digest(token), expires_at=utcnow() + timedelta(hours=hours)))
    return token


def close_session(session: Session, token: str) -> None:
    """End the session of that token on the server, and commit."""
    session.execute(delete(LoginSession).where(LoginSession.token_hash == digest(token))
                    .execution_options(synchronize_session=False))
    session.commit()


def token_holder(session: Session, token: str) -> tuple[int, User] | None:
    """(the token's ID, its active account) of a personal API token; None for an unknown token or
    an account gone or deactivated."""
    found = session.scalar(select(ApiToken).where(ApiToken.token_hash == digest(token)))
    user = session.get(User, found.user_id) if found is not None else None
    if found is None or user is None or not user.active:
        return None
    return found.id, user


def note_token_use(session: Session, token_id: int) -> None:
    """Record when a token was last used, in a transaction of its own after the view's: written
    before, it opened the write transaction (SQLite) or locked the token's row (PostgreSQL) while a
    16 MB run was validated, holding up every other writer, or every upload with the same token."""
    try:
        session.execute(update(ApiToken).where(ApiToken.id == token_id).values(last_used_at=utcnow()))
        session.commit()
    except DBAPIError:  # the view's answer stands: a busy or full store only loses this note
        session.rollback()


# ---------------------------------------------------------------- a participant's API tokens

TOKEN_PREFIX = "sepia_"


def user_tokens(session: Session, user_id: int) -> list[ApiToken]:
    return list(session.scalars(select(ApiToken).where(ApiToken.user_id == user_id).order_by(ApiToken.id)))


def create_token(session: Session, user_id: int, name: str) -> str:
    """A new personal token of the user, kept as its digest only; the token itself, to show once.
    The caller commits."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    session.add(ApiToken(user_id=user_id, name=name, token_hash=digest(token)))
    return token


def user_token(session: Session, token_id: int, user_id: int) -> ApiToken | None:
    """The token of that ID, if it is the user's."""
    token = session.get(ApiToken, token_id)
    return token if token is not None and token.user_id == user_id else None


def revoke_token(session: Session, token: ApiToken) -> None:
    """The token stops working; the caller commits."""
    session.delete(token)
