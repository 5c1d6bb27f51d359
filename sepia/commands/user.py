"""`sepia user add`: create accounts for the web tool from the command line."""
from __future__ import annotations

import click

from sepia.commands.common import store_session
from sepia.store.models import ROLES


@click.group()
def user() -> None:
    """Manage the web tool's accounts."""


@user.command("add")
@click.argument("username")
@click.option("--role", required=True, type=click.Choice(ROLES), help="What the account may do.")
@click.option("--team", help="The participant's team (participants only).")
@click.option("--display-name", default="", help="Name shown in the tool.")
@click.option("--password", help="The password; asked for (hidden, twice) when not given.")
def add(username: str, role: str, team: str | None, display_name: str, password: str | None) -> None:
    """Add an account USERNAME with a role."""
    from sepia.services.accounts import AccountError, create_user

    if password is None:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        with store_session() as session:
            create_user(session, username, password, role, team=team, display_name=display_name)
    except AccountError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"Account {username} ({role}{', team ' + team if team else ''}) created.")
