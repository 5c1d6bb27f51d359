"""The fixed vocabulary of docs/spec.md (Vocabulary): languages, answer types, ID patterns."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

LANGUAGES = ("EN", "CS", "CT", "JA")
LANGUAGE_NAMES = {"EN": "English", "CS": "Simplified Chinese", "CT": "Traditional Chinese", "JA": "Japanese"}
# ACLIA's pairs, plus EN-EN so that English collections (TREC RAG) work too.
LANGUAGE_PAIRS = ("EN-CS", "EN-CT", "EN-JA", "CS-CS", "CT-CT", "JA-JA", "EN-EN")

COMPLEX_TYPES = ("DEFINITION", "BIOGRAPHY", "RELATIONSHIP", "EVENT", "WHY")
FACTOID_TYPES = ("PERSON", "ORGANIZATION", "LOCATION", "DATE")
# OTHER is SEPIA's own: for collections converted from outside ACLIA, which carry no answer type.
ANSWER_TYPES = COMPLEX_TYPES + FACTOID_TYPES + ("OTHER",)
ANSWER_TYPE_ABBREVIATIONS = {
    "DEFINITION": "DEF", "BIOGRAPHY": "BIO", "RELATIONSHIP": "REL", "EVENT": "EVE", "WHY": "WHY",
    "PERSON": "PER", "ORGANIZATION": "ORG", "LOCATION": "LOC", "DATE": "DAT", "OTHER": "OTH",
}

# A topic's status: still being written, or ready for nuggets and votes.
TOPIC_STATUSES = (TOPIC_IN_PROGRESS, TOPIC_COMPLETED) = ("in_progress", "completed")

TOPIC_ID_RE = re.compile(r"^([A-Za-z0-9]+)-(EN|CS|CT|JA)-([0-9]+)$")
RUN_ID_RE = re.compile(r"^([A-Za-z0-9_]+)-(EN|CS|CT|JA)-(EN|CS|CT|JA)-([0-9]{2})-(T|DN|D)$")


@dataclass(frozen=True)
class RunId:
    team: str
    source_lang: str
    target_lang: str
    priority: int
    variant: str

    @property
    def language_pair(self) -> str:
        return f"{self.source_lang}-{self.target_lang}"


def parse_run_id(run_id: str) -> RunId | None:
    """Split `TEAM-SRC-TGT-NN-X`; None when it is not well formed or names no known pair."""
    m = RUN_ID_RE.match(run_id)
    if not m:
        return None
    team, src, tgt, nn, variant = m.groups()
    if f"{src}-{tgt}" not in LANGUAGE_PAIRS:
        return None
    return RunId(team, src, tgt, int(nn), variant)


def topic_language(topic_id: str) -> str | None:
    """The target language a topic ID names (`ACLIA2-CS-0001` -> CS), or None."""
    m = TOPIC_ID_RE.match(topic_id)
    return m.group(2) if m else None


def language_pair_of(run_id: str) -> str:
    """`KECIR-EN-CS-01-T` -> EN-CS; '?' for a run ID that is not well formed."""
    parsed = parse_run_id(run_id)
    return parsed.language_pair if parsed else "?"


def nugget_key(text: str) -> str:
    """A nugget's text as its copies share it: NFKC (full-width Ａ is A), runs of white space one space.
    A topic's nuggets are unique by it."""
    return " ".join(unicodedata.normalize("NFKC", text).split())
