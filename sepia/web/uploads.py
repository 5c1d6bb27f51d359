"""How large a file a form may upload. The request limit (MAX_CONTENT_LENGTH) is the one source: a file
limit leaves room under it for the form's other fields, so a file over its limit is answered by the
page's own message rather than the server's bare 413."""
from __future__ import annotations

from flask import current_app

FORM_MARGIN = 64 * 1024  # bytes of a request around its file: the CSRF token, other fields, multipart headers


def file_limit() -> int:
    """The largest file any upload form accepts."""
    return current_app.config["MAX_CONTENT_LENGTH"] - FORM_MARGIN


def run_limit() -> int:
    """The largest run file accepted: MAX_RUN_BYTES (SEPIA_MAX_RUN_BYTES), never above what a form can carry."""
    return min(current_app.config["MAX_RUN_BYTES"], file_limit())
