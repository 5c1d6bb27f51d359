"""What the store says when it refuses an import."""
from __future__ import annotations


class ImportRefused(Exception):
    """The store refuses an import; nothing was written. Carries every reason."""

    def __init__(self, reasons: list[str]):
        self.reasons = reasons
        super().__init__("; ".join(reasons))
