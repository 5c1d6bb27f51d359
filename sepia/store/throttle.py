"""Failed log-ins are throttled per account and per client address.

The failures live in the campaign store, which every server process and thread already shares, so
the limit holds across processes without another server (Flask-Limiter's shared storages need Redis
or Memcached). A request is refused while its account, or its address, has had too many failures
within the window.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from sepia.store.models import LoginFailure, as_utc, utcnow

USERNAME_CHARS = 100  # the column's size; a longer name is counted by its first characters


@dataclass(frozen=True)
class Throttle:
    per_account: int  # failures an account may have within the window
    per_address: int  # failures an address may have within the window
    window: timedelta

    def retry_after(self, session: Session, username: str, address: str) -> timedelta | None:
        """None when this log-in may be tried, else how long until it may."""
        since = utcnow() - self.window
        username = username[:USERNAME_CHARS]
        blocking = []
        for column, value, limit in ((LoginFailure.username, username, self.per_account),
                                     (LoginFailure.address, address, self.per_address)):
            # The limit-th most recent failure: once it leaves the window, a try is allowed again.
            at = session.scalar(select(LoginFailure.at).where(column == value, LoginFailure.at > since)
                                .order_by(LoginFailure.at.desc()).offset(limit - 1).limit(1))
            if at is not None:
                blocking.append(at)
        if not blocking:
            return None
        return max(timedelta(seconds=1), as_utc(max(blocking)) + self.window - utcnow())

    def record_failure(self, session: Session, username: str, address: str) -> None:
        """Note a failure and forget those that no longer count; the caller commits."""
        session.execute(delete(LoginFailure).where(LoginFailure.at <= utcnow() - self.window)
                        .execution_options(synchronize_session=False))
        session.add(LoginFailure(username=username[:USERNAME_CHARS], address=address))

    def forget_account(self, session: Session, username: str) -> None:
        """After a successful log-in the account's failures stop counting (its address's do not)."""
        session.execute(delete(LoginFailure).where(LoginFailure.username == username[:USERNAME_CHARS])
                        .execution_options(synchronize_session=False))

