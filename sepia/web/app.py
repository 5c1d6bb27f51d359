"""The Flask application factory: configuration, the store, security and one blueprint per activity."""
from __future__ import annotations

import os
from datetime import datetime, timedelta
from typing import Any, Callable

from flask import Flask, current_app, g, render_template, request, url_for
from flask.json.provider import DefaultJSONProvider
from markupsafe import Markup
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import DBAPIError, IntegrityError
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.middleware.proxy_fix import ProxyFix

from sepia import config as sepia_config
from sepia import diskfull
from sepia.formats.jsonlines import parse_line
from sepia.resources import resource_dir
from sepia.store.db import Store
from sepia.services.clock import as_utc
from sepia.text.plural import counted
from sepia.web import input_check, memory, pages, security
from sepia.web.static_files import StaticFiles
from sepia.web.uploads import FORM_MARGIN
from sepia.store.throttle import Throttle

DEFAULT_MAX_UPLOAD_BYTES = 16 * 1024 * 1024
STATIC_URL_PATH = "/static"  # what Flask would make of the static folder's name


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() not in ("0", "false", "no", "off", "")


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isascii() or not value.isdigit():
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    return int(value)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the application. `config` overrides settings (tests pass DATABASE_URL, SEARCH_ENGINE...).

    Settings: DATABASE_URL (default: sepia.config.database_url()), SEARCH_ENGINE (an engine object;
    default: sepia.search.open_engine(SEARCH_INDEX_DIR) on first use), SECRET_KEY (default:
    SEPIA_SECRET_KEY or a key kept in the data directory), SESSION_COOKIE_SECURE (default on;
    SEPIA_COOKIE_SECURE=0 turns it off), MAX_CONTENT_LENGTH, SESSION_HOURS (SEPIA_SESSION_HOURS, 12),
    LOGIN_FAILURES_PER_ACCOUNT (SEPIA_LOGIN_FAILURES_PER_ACCOUNT, 10), LOGIN_FAILURES_PER_ADDRESS
    (SEPIA_LOGIN_FAILURES_PER_ADDRESS, 50), LOGIN_THROTTLE_MINUTES (SEPIA_LOGIN_THROTTLE_MINUTES, 15)
    PROXY_COUNT (SEPIA_PROXY_COUNT, 0: how many proxies in front set X-Forwarded-For) and
    MAX_RUN_BYTES (SEPIA_MAX_RUN_BYTES: the largest run file accepted, at most a little under MAX_CONTENT_LENGTH:
    sepia.web.uploads) and
    RELEVANCE_LEVELS (SEPIA_RELEVANCE_LEVELS, 3: L0 to L2).
    """
    web_dir = resource_dir("web")
    static_dir = str(web_dir / "static")
    app = Flask(
        "sepia.web",
        template_folder=str(web_dir / "templates"),
        static_folder=static_dir,
        static_url_path=STATIC_URL_PATH,
    )
    app.config.update(
        DATABASE_URL=None,
        SEARCH_ENGINE=None,
        SEARCH_INDEX_DIR=None,
        SESSION_COOKIE_SECURE=_env_flag("SEPIA_COOKIE_SECURE", True),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_NAME="sepia_session",
        MAX_CONTENT_LENGTH=DEFAULT_MAX_UPLOAD_BYTES,
        WTF_CSRF_TIME_LIMIT=None,  # a token lives as long as the session: long edits must still save
        TEMPLATES_AUTO_RELOAD=False,
        SESSION_HOURS=_env_int("SEPIA_SESSION_HOURS", 12),
        LOGIN_FAILURES_PER_ACCOUNT=_env_int("SEPIA_LOGIN_FAILURES_PER_ACCOUNT", 10),
        LOGIN_FAILURES_PER_ADDRESS=_env_int("SEPIA_LOGIN_FAILURES_PER_ADDRESS", 50),
        LOGIN_THROTTLE_MINUTES=_env_int("SEPIA_LOGIN_THROTTLE_MINUTES", 15),
        PROXY_COUNT=_env_int("SEPIA_PROXY_COUNT", 0),
        MAX_RUN_BYTES=_env_int("SEPIA_MAX_RUN_BYTES", DEFAULT_MAX_UPLOAD_BYTES - FORM_MARGIN),
        RELEVANCE_LEVELS=_env_int("SEPIA_RELEVANCE_LEVELS", 3),  # L0 (not relevant) to L2, as ACLIA
        # "Suggest nuggets" asks this LLM server (docs/llm.md): the llm matcher's options
        LLM_OPTIONS={k: v for k, v in (("base_url", os.environ.get("SEPIA_LLM_BASE_URL")),
                                       ("model", os.environ.get("SEPIA_LLM_MODEL")),
                                       ("api_key_env", os.environ.get("SEPIA_LLM_API_KEY_ENV"))) if v},
    )
    if config:
        app.config.update(config)
    app.json = SafeJSON(app)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = security.load_secret_key()
    app.config["DATABASE_URL"] = app.config["DATABASE_URL"] or sepia_config.database_url()

    app.extensions["sepia_store"] = Store(app.config["DATABASE_URL"])
    app.extensions["sepia_throttle"] = Throttle(
        per_account=app.config["LOGIN_FAILURES_PER_ACCOUNT"],
        per_address=app.config["LOGIN_FAILURES_PER_ADDRESS"],
        window=timedelta(minutes=app.config["LOGIN_THROTTLE_MINUTES"]))
    # Flask's documented way to add WSGI middleware, which its typing (wsgi_app a method) does not allow.
    if app.config["PROXY_COUNT"]:
        # The client's address (for the log-in throttle) is the one the trusted proxies report.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=app.config["PROXY_COUNT"], x_proto=app.config["PROXY_COUNT"])
    app.wsgi_app = app.extensions["sepia_static"] = StaticFiles(  # type: ignore[method-assign]
        app.wsgi_app, root=static_dir, prefix=STATIC_URL_PATH)
    security.csrf.init_app(app)
    app.jinja_env.globals["csrf_token"] = security.page_csrf_token
    app.jinja_env.autoescape = True
    app.jinja_env.filters["html_lang"] = html_lang
    app.jinja_env.globals["item_url"] = item_url
    app.jinja_env.filters["when"] = when
    app.jinja_env.filters["utc_input"] = utc_input
    app.jinja_env.globals["counted"] = counted  # "1 topic", "2 topics"

    app.jinja_env.globals["nav_links"] = pages.nav_links

    for blueprint in pages.blueprints():
        app.register_blueprint(blueprint)

    app.before_request(security.load_current_user)
    app.before_request(input_check.refuse_unwritable_text)
    app.teardown_appcontext(_close_session)
    app.teardown_request(memory.trim_after_large_request)
    app.context_processor(security.template_globals)
    app.url_defaults(_static_version)
    app.after_request(_utf8_and_headers)
    _register_error_pages(app)
    return app


class SafeJSON(DefaultJSONProvider):
    """JSON request bodies read within the limits of JSON-lines files (sepia.formats.jsonlines): a body
    nested 100,000 deep is a ValueError, which Flask answers 400, not a RecursionError and a 500."""

    def loads(self, s, **kwargs):
        return parse_line(s.decode("utf-8") if isinstance(s, (bytes, bytearray)) else s)


def _static_version(endpoint: str, values: dict) -> None:
    """url_for("static", filename=...) gets ?v=<digest of the file's content>."""
    if endpoint == "static" and "filename" in values:
        version = current_app.extensions["sepia_static"].versions.get(values["filename"])
        if version:
            values["v"] = version


ITEM_MARKER = 987654321012  # an item ID that no real URL part holds


def item_url(endpoint: str, key: str, **values) -> Callable[[int], str]:
    """url_for(endpoint, **values, key=ID) for the many items of a page at the cost of one url_for:
    the URL is built once around a marker ID, which each item's ID then replaces."""
    head, found, tail = url_for(endpoint, **{**values, key: ITEM_MARKER}).partition(str(ITEM_MARKER))
    if not found or str(ITEM_MARKER) in tail:  # the marker is in another value too: build each
        return lambda item: url_for(endpoint, **{**values, key: item})
    return lambda item: f"{head}{int(item)}{tail}"


HTML_LANGS = {"CS": "zh-Hans", "CT": "zh-Hant", "JA": "ja", "EN": "en"}


def html_lang(code: str | None) -> str:
    """The HTML lang tag of a SEPIA language, so the browser picks the right CJK glyphs."""
    return HTML_LANGS.get(code or "", "und")


def when(moment: datetime | None) -> Markup:
    """A time in UTC, marked up so that the page's script adds the reader's local time."""
    if moment is None:
        return Markup("—")
    moment = as_utc(moment)
    return Markup('<time datetime="{}" data-local>{}</time>').format(
        moment.strftime("%Y-%m-%dT%H:%M:%SZ"), moment.strftime("%Y-%m-%d %H:%M UTC"))


def utc_input(moment: datetime | None) -> str:
    """A time as the value of an <input type="datetime-local"> that is read as UTC."""
    return as_utc(moment).strftime("%Y-%m-%dT%H:%M") if moment else ""


def _close_session(_exc) -> None:
    session = g.pop("db_session", None)
    if session is not None:
        session.close()  # rolls back: anything not committed by the view is abandoned whole


def _utf8_and_headers(response):
    if response.mimetype == "text/html" and "charset" not in response.content_type:
        response.content_type = "text/html; charset=utf-8"
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    )
    return response


def _register_error_pages(app: Flask) -> None:
    def page(status: int, title: str, message: str, echo: bool = False, short: str | None = None):
        """The error as a page, or as JSON ({"error": ...}; `short` when given) to the API and to
        requests that ask for JSON."""
        if _wants_json():
            answer: dict[str, object] = {"error": short or message}
            if request.path.startswith(API_PREFIX):  # `sepia submit` prints the problems
                answer.update(accepted=False, problems=[answer["error"]])
            return answer, status
        return render_template("error.html", status=status, title=title, message=message,
                               sent=_what_was_sent() if echo else []), status

    @app.errorhandler(DBAPIError)
    def store_error(error):
        # The transaction is rolled back whole: nothing half-written, and the page can read again.
        if "db_session" in g:
            g.db_session.rollback()
        status, title, message = _store_trouble(error)
        return page(status, title, message, echo=True, short=diskfull.MESSAGE if status == 507 else None)

    @app.errorhandler(OSError)
    def file_error(error):
        if not diskfull.is_disk_full(error):
            raise error  # any other OSError is a server error, logged with its traceback
        return page(*_DISK_FULL, echo=True, short=diskfull.MESSAGE)

    @app.errorhandler(CSRFError)
    def csrf_error(error):
        return page(400, "Form expired", "The form's security token is missing or stale. "
                    "Reload the page and try again; your browser may still hold what you typed.")

    @app.errorhandler(400)
    def bad_request(error):
        return page(400, "Bad request", error.description or "The request could not be understood.", echo=True)

    @app.errorhandler(401)
    def unauthorised(error):
        return page(401, "Log in first", "Your session has ended: log in again.")

    @app.errorhandler(403)
    def forbidden(error):
        return page(403, "Not allowed", "Your role does not give access to this page.")

    @app.errorhandler(404)
    def not_found(error):
        return page(404, "Not found", error.description or "There is nothing here.")

    @app.errorhandler(409)
    def conflict(error):
        return page(409, "Not now", error.description or "This cannot be done in the current state.")

    @app.errorhandler(429)
    def too_many(error):
        return page(429, "Too many requests", error.description or "Wait a little and try again.")

    @app.errorhandler(422)
    def unwritable(error):
        return page(422, "Cannot be saved", error.description, echo=True)

    @app.errorhandler(413)
    def too_large(error):
        return page(413, "Too large", "The upload is larger than this server accepts.")

    @app.errorhandler(HTTPException)
    def other_refusal(error):  # 405, 414, 415, 431...: the tool's page or JSON, never Werkzeug's
        headers = [(k, v) for k, v in error.get_headers() if k.lower() != "content-type"]  # 405's Allow
        body, status = page(error.code or 500, error.name, error.description or "")
        return body, status, headers

    @app.errorhandler(InternalServerError)
    def server_error(error):
        # A bug, logged with its traceback by Flask; the transaction is abandoned whole.
        if "db_session" in g:
            g.db_session.rollback()
        return page(500, "Server error", "The server failed to handle this request and saved nothing of it. "
                    "Go back in the browser (the form there still holds what you typed) and tell the organisers.")


API_PREFIX = "/api/"
NOTHING_SAVED = "Nothing of this request was saved; what you sent is below, so you can send it again."
_DISK_FULL = (507, "Disk full", "The server's disk is full. " + NOTHING_SAVED + " Tell the organisers.")


def _wants_json() -> bool:
    return (request.path.startswith(API_PREFIX) or request.is_json
            or request.accept_mimetypes.best == "application/json")


def _store_trouble(error: DBAPIError) -> tuple[int, str, str]:
    """Status, title and message for a database failure, by its kind."""
    text = str(error.orig).lower()
    if isinstance(error, IntegrityError):
        return 409, "Changed meanwhile", ("Someone changed the same thing at the same moment. " + NOTHING_SAVED)
    if diskfull.is_disk_full(error, sepia_config.sqlite_directory(current_app.config["DATABASE_URL"])):
        return _DISK_FULL
    if "locked" in text or "lock timeout" in text or "could not obtain lock" in text:
        return 503, "Busy", "The store is busy with other work. " + NOTHING_SAVED
    return 503, "Store unavailable", "The store could not be reached or refused the change. " + NOTHING_SAVED


# Form fields never echoed back on an error page.
UNECHOED_FIELDS = {"csrf_token", "password"}


def _what_was_sent() -> list[tuple[str, str]]:
    """The text fields of a form that failed, so an error page can give the user their input back."""
    if request.method != "POST" or request.content_length is None:
        return []
    return [(name, value) for name, value in request.form.items(multi=True)
            if name not in UNECHOED_FIELDS and value.strip()]
