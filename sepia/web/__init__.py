"""SEPIA's web tool: topic development, nugget extraction and pyramid voting in the browser.

Production start: `waitress-serve --threads 8 --call sepia.web:create_app` (see docs/web.md).
"""
from sepia.web.app import create_app

__all__ = ["create_app"]
