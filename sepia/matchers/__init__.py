"""The matcher registry: every matcher, SEPIA's own and plug-ins alike, is a `MatcherKind` descriptor
(sepia.matchers.base) that the CLI, reports, `Settings.describe`, the web tool, the demo and the docs
read.

A built-in matcher is one module of this package that defines `KIND`; a plug-in is a package that
declares its descriptor as an entry point of the group `sepia.matchers`
(`name = "package.module:KIND"`). Adding a matcher is adding one such file: nothing else names it.
An entry point may still name a factory instead of a descriptor (the earlier plug-in form): it is called with
keyword options (theta, judgments, tokenizer, as_set, partial) and described as an automatic matcher.
A plug-in cannot take the name of a built-in matcher.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from importlib.metadata import EntryPoint
from typing import Any, Callable, Mapping

from sepia.matchers.base import Matcher, MatcherKind, MatcherOptions

ENTRY_POINT_GROUP = "sepia.matchers"
_NOT_MATCHERS = {"base", "bagmatch", "decisions"}  # the interface, softmatch's batch engine, human decisions

__all__ = ["ENTRY_POINT_GROUP", "Matcher", "MatcherKind", "MatcherOptions", "OptionError", "builtin_kinds",
           "check_options", "kind", "kind_or_none", "make", "names", "versions_of"]


@lru_cache(maxsize=1)
def builtin_kinds() -> dict[str, MatcherKind]:
    """SEPIA's own matchers: every module of this package that defines KIND, by name."""
    found = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in _NOT_MATCHERS):
        described = getattr(importlib.import_module(f"{__name__}.{module}"), "KIND", None)
        if isinstance(described, MatcherKind):
            found[described.name] = described
    return found


def _entry_points() -> dict[str, EntryPoint]:
    from importlib.metadata import entry_points

    builtin = builtin_kinds()
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in builtin:
            found.setdefault(entry.name, entry)
    return found


def names(automatic_only: bool = False) -> list[str]:
    """Every matcher's name, built-ins first; plug-ins are imported only to ask whether they are automatic."""
    builtin = [n for n, k in builtin_kinds().items() if k.automatic or not automatic_only]
    plugins = list(_entry_points())
    if automatic_only:
        plugins = [n for n in plugins if kind(n).automatic]
    return builtin + plugins


def kind(name: str) -> MatcherKind:
    """The descriptor of the matcher of that name; ValueError for an unknown name."""
    builtin = builtin_kinds()
    if name in builtin:
        return builtin[name]
    entry = _entry_points().get(name)
    if entry is None:
        raise ValueError(f"unknown matcher {name!r}; choose one of {', '.join(names())}")
    loaded = entry.load()  # a plug-in is imported only when it is used
    return loaded if isinstance(loaded, MatcherKind) else _from_factory(name, loaded)


def kind_or_none(name: str) -> MatcherKind | None:
    """The descriptor of the matcher of that name; None for one that is not registered (an assessor's
    judgments file)."""
    try:
        return kind(name)
    except ValueError:
        return None


def _from_factory(name: str, factory: Callable[..., Any]) -> MatcherKind:
    """The descriptor of a plug-in in the earlier form: a factory taking the options as keywords,
    whose matcher may leave its name unset (it is then the entry point's)."""

    def make(o: MatcherOptions) -> Matcher:
        matcher = factory(theta=o.theta, judgments=o.judgments, tokenizer=o.tokenizer, as_set=o.as_set,
                          partial=o.partial)
        if not getattr(matcher, "name", None):
            matcher.name = name
        return matcher

    return MatcherKind(name=name, label=name, automatic=True, make=make)


class OptionError(ValueError):
    """An option the matcher does not take; `option` names it (numbers or matcher_options)."""

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option


def check_options(name: str, extra: Mapping[str, str], numbers: str = "lenient") -> None:
    """The one check of a matcher's options against its descriptor (a name that is not registered, an
    assessor's judgments, takes none): OptionError for one of its own options it does not take
    (`extra`, --matcher-option) or a number rule it has not (`numbers` other than lenient, --numbers)."""
    described = kind_or_none(name)
    if numbers != "lenient" and (described is None or "numbers" not in described.options):
        takers = ", ".join(n for n in names() if "numbers" in kind(n).options)
        raise OptionError("numbers", f"the {name} matcher has no number rule (matchers that do: {takers})")
    unknown = sorted(set(extra) - set(described.extra if described else ()))
    if unknown:
        takes = ", ".join(described.extra) if described and described.extra else "none"
        raise OptionError("matcher_options", f"the {name} matcher takes no option {', '.join(unknown)} (its own: {takes})")


def make(name: str, options: MatcherOptions | None = None) -> Matcher:
    """The matcher of that name, made with these options; ValueError for an unknown name, an option the
    matcher does not take (--matcher-option) or missing judgments. A number rule the matcher has not is
    left unread here (`sepia metaeval` scores the human matcher beside --numbers strict ones)."""
    described = kind(name)
    options = options or MatcherOptions()
    check_options(name, options.extra)
    if described.needs_judgments and options.judgments is None:
        raise ValueError(f"the {name} matcher needs judgments (--judgments FILE.tsv)")
    return described.make(options)


def versions_of(names, options: dict[str, str]) -> dict[str, str]:
    """What decides the named registered matchers' scores beyond their options (`MatcherKind.versions`),
    for a report comparing them; names that are not registered (assessors' files) have none."""
    found: dict[str, str] = {}
    for name in names:
        described = kind_or_none(name)
        if described is not None and described.versions:
            found.update(described.versions({k: v for k, v in options.items() if k in described.extra}))
    return found
