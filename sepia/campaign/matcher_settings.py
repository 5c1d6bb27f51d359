"""The matcher settings an organiser may choose on the results pages, made from the matcher registry's
descriptors (sepia.matchers): every registered matcher that needs none of its own options, each with
the common options its descriptor names (θ, the numbers rule, partial credit, tokens as a set). A
matcher's own options (a model file, a server) name things on the server, so they stay on the CLI."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from sepia import matchers
from sepia.matchers.base import NUMBER_RULES
from sepia.scoring.evaluate import Settings


def _fraction(name: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{name} must be a number, not {text!r}") from None
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be between 0 and 1, not {text}")
        return value
    return parse


def _choice(name: str, choices: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(f"{name} must be one of {', '.join(choices)}, not {text!r}")
        return text
    return parse


@dataclass(frozen=True)
class OptionField:
    """One common matcher option as a form shows and reads it: `kind` is number, choice or checkbox."""
    name: str  # the MatcherOptions (and Settings) field
    label: str
    help: str
    kind: str
    parse: Callable[[str], object]
    choices: tuple[str, ...] = ()


OPTION_FIELDS = {f.name: f for f in (
    OptionField("theta", "θ", "a match when the best softmatch is above it (--theta)", "number",
                _fraction("θ")),
    OptionField("numbers", "numbers", "strict: a nugget's numbers must be in the response (--numbers)", "choice",
                _choice("numbers", NUMBER_RULES), NUMBER_RULES),
    OptionField("partial", "partial credit", "what a partial support counts for in F (--partial)", "number",
                _fraction("partial credit")),
    OptionField("as_set", "tokens as a set", "count tokens as a set instead of a bag (--set)", "checkbox",
                lambda text: text == "1"),
)}
DEFAULTS = Settings()


@dataclass(frozen=True)
class Offered:
    """A matcher the page offers, with its option fields and their default values."""
    name: str
    title: str
    summary: str
    fields: tuple[OptionField, ...]

    def default(self, field: OptionField) -> object:
        return getattr(DEFAULTS, field.name)


def offered() -> list[Offered]:
    """Every registered matcher the page can score with, built-ins first (`matchers.names`)."""
    found = []
    for name in matchers.names():
        described = matchers.kind(name)
        if described.opt_in:  # it cannot score without its own options (a server to ask)
            continue
        found.append(Offered(name, described.title, described.summary,
                             tuple(OPTION_FIELDS[o] for o in described.options if o in OPTION_FIELDS)))
    return found


def settings_from(form: Mapping[str, str]) -> Settings:
    """The Settings a form chose: its matcher and the options that matcher takes (others are ignored,
    as the CLI's defaults); ValueError with one line for a matcher not offered or a bad value."""
    chosen = next((o for o in offered() if o.name == form.get("matcher", "")), None)
    if chosen is None:
        raise ValueError(f"choose one of the matchers {', '.join(o.name for o in offered())}")
    values = {f.name: f.parse(form.get(f.name, "").strip()) for f in chosen.fields
              if f.kind == "checkbox" or form.get(f.name, "").strip()}
    return Settings(matcher=chosen.name, **values)  # type: ignore[arg-type]


def label(settings: Settings) -> str:
    """How tables name the scores of these settings: `automatic (BINARIZED), θ 0.5, numbers strict`."""
    chosen = next(o for o in offered() if o.name == settings.matcher)
    shown = [f"{f.label} {getattr(settings, f.name)}" for f in chosen.fields if f.kind != "checkbox"]
    shown += [f.label for f in chosen.fields if f.kind == "checkbox" and getattr(settings, f.name)]
    return ", ".join([chosen.title, *shown])


def query_of(settings: Settings) -> dict[str, str]:
    """The form's values that choose these settings again (a link to their scores)."""
    chosen = next(o for o in offered() if o.name == settings.matcher)
    values = {f.name: str(getattr(settings, f.name)) for f in chosen.fields if f.kind != "checkbox"}
    values.update({f.name: "1" for f in chosen.fields if f.kind == "checkbox" and getattr(settings, f.name)})
    return {"matcher": settings.matcher, **values}
