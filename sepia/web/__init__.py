"""SEPIA's web tool: topic development, nugget extraction and pyramid voting in the browser.

Production start: `gunicorn --workers 3 --threads 8 'sepia.web:create_app()'` (see docs/web.md).
"""
from sepia.web.app import create_app

__all__ = ["create_app"]
