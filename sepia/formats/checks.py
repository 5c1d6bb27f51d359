"""The checks the XML formats share, beyond what a schema can say (docs/spec.md, Formats): each format's
reader collects its problems here, all reported together as one FormatError."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from sepia import limits, vocab
from sepia.formats import model
from sepia.formats.errors import Problem
from sepia.formats.xmlsafe import LoadedXml


class Checks:
    """Collects problems while one parsed file is turned into a model object."""

    def __init__(self, loaded: LoadedXml, schema_valid: bool = False):
        self.loaded = loaded
        self.problems: list[Problem] = []
        self.schema_valid = schema_valid  # the XSD passed, so the element structure can be trusted

    def error(self, element, message: str) -> None:
        self.problems.append(self.loaded.problem(element, message))

    def warning(self, element, message: str) -> None:
        self.problems.append(self.loaded.problem(element, message, "warning"))

    def number(self, element, attribute: str, kind: Callable = float, where: str = ""):
        """The attribute's value as `kind`; None when absent or not a number. A schema-valid file
        can still hold one: libxml2's xs:double takes "1e" and "2.5e+", which no reader can, so then
        it is an error here (otherwise the schema reports it)."""
        value = element.get(attribute)
        if value is None:
            return None
        try:
            return kind(value)
        except ValueError:
            if self.schema_valid:
                self.error(element, f"{where}{attribute} {value!r} is not a number")
            return None

    def topic_ids(self, root, lang: str | None = None) -> None:
        """Topic IDs are unique and, when a language is known, belong to it."""
        seen: set[str] = set()
        for topic in root.iterfind("TOPIC"):
            self.topic_id(topic, seen, lang)

    def topic_id(self, topic, seen: set[str], lang: str | None) -> str:
        """One topic's ID checked against those `seen` before it and the file's language; returned."""
        topic_id = topic.get("ID", "")
        if topic_id in seen:
            self.error(topic, f"topic {topic_id} appears more than once")
        seen.add(topic_id)
        topic_lang = vocab.topic_language(topic_id)
        if lang and topic_lang and topic_lang != lang:
            self.error(topic, f"topic {topic_id} is a {topic_lang} topic, but this file is for {lang}")
        return topic_id

    def topics_with_questions(self, root):
        """Each TOPIC of a topic set or gold standard, with its ID and QUESTIONs; the IDs are checked
        against each other and the root's LANG first."""
        self.topic_ids(root, root.get("LANG"))
        for el in root.iterfind("TOPIC"):
            topic_id = el.get("ID", "")
            yield el, topic_id, self.lang_texts(el, "QUESTION", topic_id)

    def lang_texts(self, topic, tag: str, topic_id: str) -> list[model.LangText]:
        texts, seen = [], set()
        for el in topic.iterfind(tag):
            lang = el.get("LANG", "")
            if lang in seen:
                self.error(el, f"topic {topic_id}: more than one {tag} in {lang}")
            seen.add(lang)
            texts.append(model.LangText(lang, el.text or ""))
        return texts

    def ranks(self, elements: list, what: str, topic_id: str) -> None:
        """Ranks run 1..n in some order, without gaps or repeats."""
        seen: dict[int, object] = {}
        for element in elements:
            rank = self.number(element, "RANK", int)
            if rank is None:
                continue
            if rank in seen:
                self.error(element, f"topic {topic_id}: {what} rank {rank} is repeated")
            seen[rank] = element
        missing = sorted(set(range(1, len(elements) + 1)) - set(seen))
        if missing and seen:
            shown = ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else "")
            self.error(elements[0], f"topic {topic_id}: {what} ranks must run 1..{len(elements)} without gaps;"
                                    f" missing {shown}")

    def metadata(self, root) -> tuple[model.Metadata, vocab.RunId | None]:
        """A run's METADATA, its run ID checked against the file's name and the IR4QA run it used."""
        meta = root.find("METADATA")
        run_id = (meta.findtext("RUNID") or "").strip() if meta is not None else ""
        parsed = vocab.parse_run_id(run_id)
        # Only an empty RUNID is left to the schema: one of spaces passes its minLength.
        if meta is not None and meta.findtext("RUNID") and parsed is None:
            self.error(meta.find("RUNID"), f"run ID {run_id!r} is not of the form TEAM-SRC-TGT-NN-X "
                       f"(e.g. KECIR-CS-CS-01-T; language pairs {' '.join(vocab.LANGUAGE_PAIRS)}; X is T, D or DN)")
        if parsed and (too_long := limits.too_long("the run ID's TEAM part", parsed.team, limits.TEAM)):
            self.error(meta.find("RUNID"), too_long)
        name = Path(self.loaded.path).name
        stem = name.split(".")[0]
        if parsed and vocab.parse_run_id(stem) and stem != run_id:
            self.error(meta.find("RUNID"), f"run ID {run_id} does not match the file name {name}")
        ir4qa = meta.findtext("IR4QA_RUNID") if meta is not None else None
        if ir4qa is not None:
            ir4qa = ir4qa.strip()
            ir_parsed = vocab.parse_run_id(ir4qa)
            if ir_parsed is None:
                self.error(meta.find("IR4QA_RUNID"), f"IR4QA run ID {ir4qa!r} is not of the form TEAM-SRC-TGT-NN-X")
            elif parsed and ir_parsed.target_lang != parsed.target_lang:
                self.error(meta.find("IR4QA_RUNID"),
                           f"IR4QA run {ir4qa} searched {ir_parsed.target_lang}, but this run answers in "
                           f"{parsed.target_lang}")
        description = meta.findtext("DESCRIPTION") if meta is not None else ""
        return model.Metadata(run_id, description or "", ir4qa), parsed
