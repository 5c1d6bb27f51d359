"""Creating and changing accounts and their passwords: shared by the admin pages, the log-in,
`sepia user add` and the demo."""
from __future__ import annotations

import functools
import re
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from sepia import limits
from sepia.formats.xmlchars import describe, first_unwritable
from sepia.store.db import Store
from sepia.store.models import ROLES, Team, User

from sepia.vocab import LANGUAGES

USERNAME_RE = re.compile(r"^[A-Za-z0-9_.@-]{2,100}$")
# A team's name is the TEAM part of its run IDs (vocab.RUN_ID_RE), or the team could never submit.
TEAM_RE = re.compile(rf"[A-Za-z0-9_]{{1,{limits.TEAM}}}")
DISPLAY_NAME_MAX = 200  # user.display_name
MIN_PASSWORD_LENGTH = 8


class AccountError(ValueError):
    """A request to create or change an account that cannot be carried out; the message says why."""


def team_named(session: Session, name: str) -> Team:
    """The team of that name, made when new; a name that cannot start a run ID is refused."""
    if not TEAM_RE.fullmatch(name):
        raise AccountError(f"A team's name is the TEAM part of its run IDs (TEAM-CS-CS-01-T): 1 to {limits.TEAM} "
                           f"letters A-Z, digits or _, not {name[:40]!r}{'...' if len(name) > 40 else ''}.")
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
    if account_named(session, username) is not None:
        raise AccountError(f"The user name {username!r} is taken.")
    team = (team or "").strip() or None
    if role == "participant" and team is None:
        raise AccountError("A participant belongs to a team: give its name.")
    if role != "participant" and team is not None:
        raise AccountError("Only participants belong to a team.")
    user = User(username=username, password_hash=hash_password(password), role=role,
                display_name=checked_display_name(display_name), active=True)
    if team:
        user.team = team_named(session, team)
    session.add(user)
    session.flush()
    return user


def accounts(session: Session) -> list[User]:
    """Every account, by role and then user name."""
    return list(session.scalars(select(User).order_by(User.role, User.username)))


def active_assessors(session: Session) -> list[str]:
    """The active assessors' usernames, sorted: whom judging work can be shared out to."""
    return list(session.scalars(select(User.username).where(User.role == "assessor", User.active)
                                .order_by(User.username)))


def account(session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def account_named(session: Session, username: str) -> User | None:
    return session.scalars(select(User).where(User.username == username)).first()


def checked_display_name(name: str) -> str:
    """A display name as stored: trimmed, at most DISPLAY_NAME_MAX characters, none XML cannot carry."""
    name = name.strip()
    if len(name) > DISPLAY_NAME_MAX:
        raise AccountError(f"A display name has at most {DISPLAY_NAME_MAX} characters; this one has {len(name):,}.")
    if (char := first_unwritable(name)) is not None:
        raise AccountError(f"A display name cannot hold the control character {describe(char)}.")
    return name


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


# ---------------------------------------------------------------- passwords

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


def check_new_password(password: str) -> str | None:
    """An error message when a new password is too weak, else None."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"A password needs at least {MIN_PASSWORD_LENGTH} characters."
    return None


# ---------------------------------------------------------------- the demo

DEMO_ACCOUNTS = (
    ("organiser", "organiser", None),
    ("developer", "topic_developer", None),
    ("assessor1", "assessor", None),
    ("assessor2", "assessor", None),
    ("participant", "participant", "DEMO"),
)


def seed_demo_accounts(store: Store) -> list[tuple[str, str, str]]:
    """Create the demo accounts that do not exist yet, each with a fresh random password.

    Returns (username, password, role) for the accounts created now; accounts already there keep
    their password and are not listed (their password is not known any more).
    """
    created = []
    with store.transaction() as session:
        for username, role, team in DEMO_ACCOUNTS:
            if account_named(session, username) is not None:
                continue
            password = secrets.token_urlsafe(9)
            create_user(session, username, password, role, team=team, display_name=username.capitalize())
            created.append((username, password, role))
    return created
