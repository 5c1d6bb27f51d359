"""A results table as organisers publish it: shown on a page, downloaded as CSV or as LaTeX."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from markupsafe import Markup, escape

LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                 "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}
CONTEXT_ROW = ' class="context"'


@dataclass
class Table:
    key: str  # names the table in URLs and file names
    title: str
    columns: list[str]
    rows: list[list] = field(default_factory=list)  # numbers stay numbers until shown
    digits: int = 4
    context: int = 0  # the last rows give context (a language pair's mean and best), not runs

    def cell(self, value) -> str:
        if value is None:
            return "—"
        if isinstance(value, float):
            return f"{value:.{self.digits}f}"
        return str(value)

    def html_rows(self) -> Markup:
        """The body's rows as results/_table.html shows them, joined here rather than by a template
        loop per cell (most of the results page's time; tools/bench_web.py)."""
        first_context = len(self.rows) - self.context
        rows = []
        for i, row in enumerate(self.rows):
            cells = "".join(f'<td class="{"num" if j else "docid"}">{escape(self.cell(v))}</td>'
                            for j, v in enumerate(row))
            rows.append(f'\n    <tr{CONTEXT_ROW if i >= first_context else ""}>{cells}</tr>\n  ')
        return Markup("".join(rows))

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows([["" if v is None else (f"{v:.{self.digits}f}" if isinstance(v, float) else v) for v in row]
                          for row in self.rows])
        return out.getvalue()

    def to_latex(self) -> str:
        """A booktabs tabular with the title as caption; numbers right-aligned."""
        numeric = [all(isinstance(row[i], (int, float)) or row[i] is None for row in self.rows) and bool(self.rows)
                   for i in range(len(self.columns))]
        spec = "".join("r" if n else "l" for n in numeric)
        lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{latex_escape(self.title)}}}",
                 rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
                 " & ".join(latex_escape(c) for c in self.columns) + r" \\", r"\midrule"]
        lines += [" & ".join(latex_escape(self.cell(v)) for v in row) + r" \\" for row in self.rows]
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
        return "\n".join(lines)


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(c, c) for c in text).replace("—", "--")
