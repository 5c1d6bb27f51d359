"""The judging pages' blueprint, which each feature's module adds its routes to."""
from flask import Blueprint

bp = Blueprint("judging", __name__)
COMMENT_MAX_CHARS = 2_000
