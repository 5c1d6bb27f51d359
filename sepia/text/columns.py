"""Plain-text tables of the commands' reports: each column as wide as its widest cell, two spaces
apart, text flush left and numbers flush right, padded by display width so that Chinese and
Japanese cells line up. Docs and tests pin these tables byte for byte."""
from __future__ import annotations

import unicodedata
from typing import Sequence


def display_width(text: str) -> int:
    """Terminal columns: East Asian wide and fullwidth characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def aligned(rows: Sequence[Sequence[str]], left: int = 1, indent: str = "") -> list[str]:
    """One line per row, after `indent`: the first `left` columns flush left, the others flush right."""
    widths = [max(display_width(row[i]) for row in rows) for i in range(len(rows[0]))]

    def pad(cell: str, width: int, flush_left: bool) -> str:
        space = " " * (width - display_width(cell))
        return cell + space if flush_left else space + cell

    return [indent + "  ".join(pad(cell, width, i < left) for i, (cell, width) in enumerate(zip(row, widths)))
            for row in rows]
