"""The versions of what decides scores: SEPIA, Python's Unicode tables (NFKC), the tokenizers, their
dictionaries, the stemmer and the numeric libraries.

A score is reproducible only with the same analysis, so every JSON report records them beside its
settings (`stamped`); the lock file pins them for the project's own tests."""
from __future__ import annotations

from functools import cache

__version__ = "0.1.0"  # SEPIA's own; the package root hands it out as sepia.__version__

# Distributions, not modules: sudachidict-core's dictionary decides Japanese units as much as SudachiPy.
DISTRIBUTIONS = ("jieba", "SudachiPy", "sudachidict-core", "opencc", "PyStemmer", "whoosh-reloaded", "tantivy",
                 "lxml", "numpy", "scipy")


@cache
def analyzer_versions() -> dict[str, str]:
    """{"sepia", "python", "unicode", then each installed distribution above: version}."""
    import platform  # here, not above: `import sepia` reads __version__ from this module and stays light
    import unicodedata
    from importlib.metadata import PackageNotFoundError, version

    found = {"sepia": __version__, "python": platform.python_version(), "unicode": unicodedata.unidata_version}
    for name in DISTRIBUTIONS:
        try:
            found[name.lower()] = version(name)
        except PackageNotFoundError:  # a wheel installed without an optional engine
            continue
    return found


def report_versions(settings: dict | None = None) -> dict[str, str]:
    """The analysers' versions, and those a report's matcher settings record (an LLM's identity and
    prompt digests, `MatcherKind.versions`)."""
    matcher = settings.get("versions", {}) if isinstance(settings, dict) else {}
    return {**analyzer_versions(), **matcher}


def stamped(report: dict, matchers: dict[str, str] | None = None) -> dict:
    """The report with the versions it was computed with, under "versions"; `matchers`: those of the
    matchers it compares (`sepia.matchers.versions_of`)."""
    return {**report, "versions": {**report_versions(report.get("settings")), **(matchers or {})}}
