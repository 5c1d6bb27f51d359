"""Creating and changing accounts: shared by the admin pages, `sepia user add` and the demo."""
from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from sepia.store.models import ROLES, Team, User
from sepia.vocab import LANGUAGES
from sepia.web.security import check_new_password, hash_password

USERNAME_RE = re.compile(r"^[A-Za-z0-9_.@-]{2,100}$")


class AccountError(ValueError):
    """A request to create or change an account that cannot be carried out; the message says why."""


def team_named(session: Session, name: str) -> Team:
    team = session.scalars(select(Team).where(Team.name == name)).first()
    if team is None:
        team = Team(name=name)
        session.add(team)
    return team


def create_user(session: Session, username: str, password: str, role: str,
                team: str | None = None, display_name: str = "") -> User:
    """Add an account; participants must belong to a team, other roles must not."""
    username = username.strip()
    if not USERNAME_RE.match(username):
        raise AccountError("A user name has 2 to 100 letters, digits or . _ @ - and no spaces.")
    if role not in ROLES:
        raise AccountError(f"Unknown role {role!r}; choose one of {', '.join(ROLES)}.")
    problem = check_new_password(password)
    if problem:
        raise AccountError(problem)
    if session.scalars(select(User).where(User.username == username)).first() is not None:
        raise AccountError(f"The user name {username!r} is taken.")
    team = (team or "").strip() or None
    if role == "participant" and team is None:
        raise AccountError("A participant belongs to a team: give its name.")
    if role != "participant" and team is not None:
        raise AccountError("Only participants belong to a team.")
    user = User(username=username, password_hash=hash_password(password), role=role,
                display_name=display_name.strip(), active=True)
    if team:
        user.team = team_named(session, team)
    session.add(user)
    session.flush()
    return user


def parse_languages(text: str) -> str | None:
    """The languages an assessor works in, as the account keeps them ("CS JA"); None for all."""
    codes = list(dict.fromkeys(text.replace(",", " ").upper().split()))
    unknown = [c for c in codes if c not in LANGUAGES]
    if unknown:
        raise AccountError(f"Unknown language {', '.join(unknown)}; choose among {' '.join(LANGUAGES)}.")
    return " ".join(codes) or None


def set_password(user: User, password: str) -> None:
    problem = check_new_password(password)
    if problem:
        raise AccountError(problem)
    user.password_hash = hash_password(password)
    user.login_sessions.clear()  # a new password ends every open session of the account
