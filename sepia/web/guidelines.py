"""Guidelines for assessors in the browser: the organiser writes each judging task's guidelines
(every save a new version); every judging screen shows the current version beside the item
(web/templates/judging/_guidelines.html), and an assessor acknowledges a new version before the
next judgment of that task is saved (`sepia.store.guidelines.require_read`).

The text is a small Markdown subset rendered from escaped text, so nothing an organiser types
becomes markup other than these: `#`/`##` headings, `-`/`*` list items, **bold**, *emphasis*,
`code`, paragraphs at blank lines. No links, images or HTML."""
from __future__ import annotations

import re

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from markupsafe import Markup, escape

from sepia.store import guidelines
from sepia.web.db import db
from sepia.web.security import roles_required

bp = Blueprint("guidelines", __name__)

_INLINE = ((re.compile(r"`([^`\n]+)`"), r"<code>\1</code>"),
           (re.compile(r"\*\*([^*\n]+)\*\*"), r"<strong>\1</strong>"),
           (re.compile(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])"), r"<em>\1</em>"))
_HEADINGS = (("## ", "h4"), ("# ", "h3"))


def _inline(line: str) -> str:
    text = str(escape(line))  # first: every <, >, & and quote the organiser typed is text
    for pattern, tag in _INLINE:
        text = pattern.sub(tag, text)
    return text


def render(text: str) -> Markup:
    """The guidelines as HTML: the Markdown subset above over escaped text."""
    html: list[str] = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = [line.rstrip() for line in block.split("\n") if line.strip()]
        heading = next(((mark, tag) for mark, tag in _HEADINGS if lines and lines[0].startswith(mark)), None)
        if heading is not None:
            mark, tag = heading
            html.append(f"<{tag}>{_inline(lines.pop(0)[len(mark):])}</{tag}>")
        if lines and all(line.lstrip()[:2] in ("- ", "* ") for line in lines):
            html.append("<ul>" + "".join(f"<li>{_inline(line.lstrip()[2:])}</li>" for line in lines) + "</ul>")
        elif lines:
            html.append("<p>" + "<br>".join(_inline(line) for line in lines) + "</p>")
    return Markup("\n".join(html))


@bp.app_template_global()
def guidelines_for(task: str) -> dict | None:
    """What a judging screen's guidelines partial shows of TASK: None when there are none."""
    if g.user is None:
        return None
    shown = guidelines.shown(db(), task, g.user.username, needs_reading=g.user.role == "assessor")
    if shown is None:
        return None
    row = shown.guideline
    return {"task": guidelines.TASKS[task], "version": row.version, "author": row.author, "at": row.created_at,
            "html": render(row.text), "read": shown.read}


@bp.route("/guidelines/")
@roles_required("organiser")
def index():
    tasks = {task: guidelines.history(db(), task) for task in guidelines.TASKS}
    return render_template("guidelines.html", tasks=tasks, names=guidelines.TASKS, render=render,
                           max_chars=guidelines.MAX_CHARS)


@bp.route("/guidelines/<task>", methods=["POST"])
@roles_required("organiser")
def save(task: str):
    if task not in guidelines.TASKS:
        abort(404, f"No judging task {task}.")
    try:
        row = guidelines.save(db(), task, request.form.get("text", ""), g.user.username)
        db().commit()
    except ValueError as error:
        db().rollback()
        flash(f"The {guidelines.TASKS[task]} guidelines were not saved: {error}.", "error")
        return redirect(url_for("guidelines.index"))
    flash(f"The {guidelines.TASKS[task]} guidelines saved as version {row.version}; assessors acknowledge it "
          "before they judge that task again.", "success")
    return redirect(url_for("guidelines.index"))
