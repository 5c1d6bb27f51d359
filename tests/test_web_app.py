"""The application around the screens: upload limit, start commands, demo accounts, production entry."""
from __future__ import annotations

from click.testing import CliRunner
from sqlalchemy import select

from web_helpers import PASSWORD, browser_for

from sepia.cli import main
from sepia.store.db import Store
from sepia.store.models import User
from sepia.services import accounts
from sepia.web import create_app


def test_oversized_request_is_refused_with_413(app):
    app.config["MAX_CONTENT_LENGTH"] = 1000
    dev = browser_for(app, "dev")
    response = dev.post("/topics/", {"lang": "CS", "topic_id": "x" * 5000})
    assert response.status_code == 413 and "larger than this server accepts" in response.get_data(as_text=True)


def test_seed_demo_accounts_gives_one_account_per_role_that_logs_in(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'demo.db'}")
    created = accounts.seed_demo_accounts(store)
    assert sorted(role for _, _, role in created) == sorted(
        ["organiser", "topic_developer", "assessor", "assessor", "participant"])
    assert accounts.seed_demo_accounts(store) == []  # a second run keeps the accounts as they are
    with store.transaction() as session:
        participant = session.scalars(select(User).where(User.role == "participant")).one()
        assert participant.team.name == "DEMO"
    application = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'demo.db'}", "SECRET_KEY": "k",
                              "SESSION_COOKIE_SECURE": False})
    for username, password, _ in created:
        assert browser_for(application).login(username, password).status_code == 302
    store.dispose()
    application.extensions["sepia_store"].dispose()


def test_serve_turns_secure_cookies_off_only_on_this_machine(monkeypatch):
    seen = {}

    def fake_run(self, host, port, debug, use_reloader, threaded):
        seen.update(host=host, port=port, secure=self.config["SESSION_COOKIE_SECURE"])

    monkeypatch.setattr("flask.Flask.run", fake_run)
    result = CliRunner().invoke(main, ["serve", "--port", "5055"])
    assert result.exit_code == 0, result.output
    assert seen == {"host": "127.0.0.1", "port": 5055, "secure": False}
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "8080"])
    assert result.exit_code == 0, result.output
    assert seen == {"host": "0.0.0.0", "port": 8080, "secure": True}


def test_production_entry_point_needs_no_arguments(sepia_home):
    # waitress-serve --call sepia.web:create_app calls it bare: settings come from the environment.
    application = create_app()
    assert application.config["SESSION_COOKIE_SECURE"] is True
    assert (sepia_home / "secret_key").exists()
    assert application.test_client().get("/login").status_code == 200
    application.extensions["sepia_store"].dispose()


def test_password_typed_at_the_prompt_is_checked(sepia_home):
    result = CliRunner().invoke(main, ["user", "add", "ann", "--role", "organiser"], input="short\nshort\n")
    assert result.exit_code == 1 and "at least 8 characters" in result.output
    result = CliRunner().invoke(main, ["user", "add", "ann", "--role", "organiser", "--password", PASSWORD])
    assert result.exit_code == 0


def test_a_busy_port_is_refused_with_the_fix_before_any_work(tmp_path):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for command in (["serve", "--port", str(port)], ["demo", "--home", str(tmp_path / "d"), "--port", str(port)]):
            result = CliRunner().invoke(main, command)
            assert result.exit_code == 1, result.output
            assert f"cannot listen on 127.0.0.1:{port}" in result.output and f"make demo PORT={port + 1}" in result.output
    assert not (tmp_path / "d").exists()  # the demo did not start building
