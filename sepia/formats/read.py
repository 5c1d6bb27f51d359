"""Read the five XML formats into `sepia.formats.model` objects, validating as we go.

Every file is checked against its XSD and then against the rules a schema cannot express
(spec section 2); all problems are collected and raised together as one FormatError.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from lxml import etree

from sepia import limits, vocab
from sepia.formats import model
from sepia.formats.errors import FormatError, Problem, capped
from sepia.formats.schema import schema_problems
from sepia.formats.xmlsafe import LoadedXml, load_xml, parse_xml

FORMATS = ("topic", "qa", "ir4qa", "cclqa", "gold")
RUN_FORMATS = {"QUESTION_ANALYSIS": "qa", "IR4QA_RESULT": "ir4qa", "CCLQA_RESULT": "cclqa"}
RUN_CLASSES = {"qa": model.QARun, "ir4qa": model.IR4QARun, "cclqa": model.CCLQARun}


def detect_format(root: etree._Element) -> str | None:
    """Tell the format from the root's children; None when the file does not say."""
    if root.tag != "TOPIC_SET":
        return None
    if root.find("METADATA") is not None:
        for topic in root.iterfind("TOPIC"):
            for child in topic:
                if child.tag in RUN_FORMATS:
                    return RUN_FORMATS[child.tag]
        return "cclqa" if root.find("METADATA/IR4QA_RUNID") is not None else None
    if root.find("TOPIC/NUGGET") is not None:
        return "gold"
    return "topic"


class _Reader:
    """Collects problems while turning one parsed file into a model object."""

    def __init__(self, loaded: LoadedXml, schema_valid: bool = False):
        self.loaded = loaded
        self.problems: list[Problem] = []
        self.schema_valid = schema_valid  # the XSD passed, so the element structure can be trusted

    def error(self, element, message: str) -> None:
        self.problems.append(self.loaded.problem(element, message))

    def warning(self, element, message: str) -> None:
        self.problems.append(self.loaded.problem(element, message, "warning"))

    # ------------------------------------------------------------ shared pieces

    def number(self, element, attribute: str, kind: Callable = float):
        value = element.get(attribute)
        if value is None:
            return None
        try:
            return kind(value)
        except ValueError:
            return None  # the schema reports it

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

    def metadata(self, root, path: str) -> tuple[model.Metadata, vocab.RunId | None]:
        meta = root.find("METADATA")
        run_id = (meta.findtext("RUNID") or "").strip() if meta is not None else ""
        parsed = vocab.parse_run_id(run_id)
        if meta is not None and run_id and parsed is None:
            self.error(meta.find("RUNID"), f"run ID {run_id!r} is not of the form TEAM-SRC-TGT-NN-X "
                       f"(e.g. KECIR-CS-CS-01-T; language pairs {' '.join(vocab.LANGUAGE_PAIRS)}; X is T, D or DN)")
        if parsed and (too_long := limits.too_long("the run ID's TEAM part", parsed.team, limits.TEAM)):
            self.error(meta.find("RUNID"), too_long)
        stem = Path(path).name.split(".")[0]
        if parsed and vocab.parse_run_id(stem) and stem != run_id:
            self.error(meta.find("RUNID"), f"run ID {run_id} does not match the file name {Path(path).name}")
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

    # ------------------------------------------------------------ formats

    def topic(self, root) -> model.TopicSet:
        lang = root.get("LANG")
        self.topic_ids(root, lang)
        topics = []
        for el in root.iterfind("TOPIC"):
            topic_id = el.get("ID", "")
            questions = self.lang_texts(el, "QUESTION", topic_id)
            narratives = self.lang_texts(el, "NARRATIVE", topic_id)
            self.question_languages(el, topic_id, questions)
            key_terms = [model.LangText(k.get("LANG", ""), k.text or "") for k in el.iterfind("KEY_TERM")]
            topics.append(model.Topic(topic_id, questions, narratives, el.get("ANSWER_TYPE"),
                                      el.get("STATUS"), el.findtext("MEMO"), key_terms))
        return model.TopicSet(topics, lang)

    def lang_texts(self, topic, tag: str, topic_id: str) -> list[model.LangText]:
        texts, seen = [], set()
        for el in topic.iterfind(tag):
            lang = el.get("LANG", "")
            if lang in seen:
                self.error(el, f"topic {topic_id}: more than one {tag} in {lang}")
            seen.add(lang)
            texts.append(model.LangText(lang, el.text or ""))
        return texts

    def question_languages(self, topic, topic_id: str, questions: list[model.LangText]) -> None:
        target = vocab.topic_language(topic_id)
        langs = {q.lang for q in questions}
        if target and questions and target not in langs:
            self.error(topic, f"topic {topic_id}: no QUESTION in its target language {target}")
        elif questions and "EN" not in langs:
            self.warning(topic, f"topic {topic_id}: no English QUESTION")

    def gold(self, root) -> model.GoldStandard:
        lang = root.get("LANG")
        self.topic_ids(root, lang)
        topics = []
        for el in root.iterfind("TOPIC"):
            topic_id = el.get("ID", "")
            questions = self.lang_texts(el, "QUESTION", topic_id)
            nuggets, seen = [], set()
            for n in el.iterfind("NUGGET"):
                nugget_id = n.get("ID", "")
                if nugget_id in seen:
                    self.error(n, f"topic {topic_id}: nugget {nugget_id} appears more than once")
                seen.add(nugget_id)
                nuggets.append(self.nugget(n, topic_id))
            topics.append(model.GoldTopic(topic_id, el.get("ANSWER_TYPE", ""), questions, nuggets))
        return model.GoldStandard(lang, topics)

    def nugget(self, el, topic_id: str) -> model.GoldNugget:
        nugget_id = el.get("ID", "")
        votes, assessors = [], set()
        for vote in el.iterfind("VOTE"):
            assessor = vote.get("ASSESSOR", "")
            if assessor in assessors:
                self.error(vote, f"topic {topic_id}: nugget {nugget_id} has two votes by {assessor}")
            assessors.add(assessor)
            votes.append((assessor, vote.get("VITAL") == "1"))
        vital_count = self.number(el, "VITAL_VOTES", int)
        voter_count = self.number(el, "VOTERS", int)
        if vital_count is not None and voter_count is not None and vital_count > voter_count:
            self.error(el, f"topic {topic_id}: nugget {nugget_id} has VITAL_VOTES={vital_count} "
                           f"but only VOTERS={voter_count}")
        if votes:
            vital = sum(1 for _, v in votes if v)
            if vital_count is not None and vital_count != vital:
                self.error(el, f"topic {topic_id}: nugget {nugget_id} says VITAL_VOTES={vital_count} "
                               f"but its VOTEs have {vital} vital")
            if voter_count is not None and voter_count != len(votes):
                self.error(el, f"topic {topic_id}: nugget {nugget_id} says VOTERS={voter_count} "
                               f"but has {len(votes)} VOTEs")
        if votes:  # the counts are then derived from the votes (and were checked against them above)
            vital_count = voter_count = None
        return model.GoldNugget(
            nugget_id, el.findtext("TEXT") or "", self.number(el, "WEIGHT"),
            [s.get("DOCID", "") for s in el.iterfind("SOURCE")], votes, vital_count, voter_count)

    def run(self, root, path: str, format_name: str):
        """A Question Analysis, IR4QA or CCLQA run: METADATA, then one TOPIC after another."""
        metadata, run_id = self.metadata(root, path)
        return RUN_CLASSES[format_name](metadata, self.run_topics(root, run_id, format_name, set()))

    def run_topics(self, root, run_id: vocab.RunId | None, format_name: str, seen: set[str]) -> list:
        """The topics among `root`'s children (all of the file's, or one window of them: `seen` holds
        the topic IDs of the windows before), their IDs checked."""
        lang = run_id.target_lang if run_id else None
        if format_name == "cclqa" and self.schema_valid:
            return self.cclqa_topics_valid(root, lang, seen)
        read_topic = getattr(self, f"{format_name}_topic")
        return [read_topic(el, self.topic_id(el, seen, lang)) for el in root.iterfind("TOPIC")]

    def qa_topic(self, el, topic_id: str) -> model.QATopic:
        terms = [model.KeyTerm(t.text or "", t.get("LANG"), self.number(t, "SCORE"))
                 for t in el.iterfind("QUESTION_ANALYSIS/KEY_TERM")]
        types = [model.AnswerTypeScore((a.text or "").strip(), self.number(a, "SCORE"))
                 for a in el.iterfind("QUESTION_ANALYSIS/ANSWER_TYPE")]
        return model.QATopic(topic_id, terms, types)

    def ir4qa_topic(self, el, topic_id: str) -> model.IR4QATopic:
        docs = el.findall("IR4QA_RESULT/DOCUMENT")  # at most 1,000: schema.MAX_CHILDREN
        if self.schema_valid and (plain := _plain_ranking(docs)) is not None:
            return model.IR4QATopic(topic_id, plain)
        self.ranks(docs, "document", topic_id)
        seen: set[str] = set()
        for d in docs:
            if d.get("DOCID") in seen:
                self.error(d, f"topic {topic_id}: document {d.get('DOCID')} is ranked twice")
            seen.add(d.get("DOCID"))
        return model.IR4QATopic(topic_id, [
            model.RetrievedDoc(self.number(d, "RANK", int) or 0, d.get("DOCID", ""), self.number(d, "SCORE"))
            for d in docs])

    def cclqa_topic(self, el, topic_id: str) -> model.CCLQATopic:
        answers = el.findall("CCLQA_RESULT/ANSWER")
        self.ranks(answers, "answer", topic_id)
        return model.CCLQATopic(topic_id, [
            model.Answer(self.number(a, "RANK", int) or 0, a.findtext("TEXT") or "",
                         [(d.text or "").strip() for d in a.iterfind("DOCID")])
            for a in answers])

    def cclqa_topics_valid(self, root, lang: str | None, seen: set[str]) -> list[model.CCLQATopic]:
        """`cclqa`'s topics from a file that passed the XSD, in one walk over the tree that also checks
        the topic IDs: the schema fixes the nesting (TOPIC, ANSWER, then its TEXT, then its DOCIDs),
        so no path lookups are needed."""
        topics = []
        for el in root.iterchildren("TOPIC"):
            topic_id = self.topic_id(el, seen, lang)
            answers, ranks, docids = [], [], []
            for node in el.iter("ANSWER", "TEXT", "DOCID"):
                tag = node.tag
                if tag == "TEXT":
                    answers[-1][1] = node.text or ""
                elif tag == "DOCID":
                    docids.append((node.text or "").strip())
                else:
                    rank = int(node.get("RANK"))
                    ranks.append(rank)
                    docids = []
                    answers.append([rank, "", docids])
            if ranks != list(range(1, len(ranks) + 1)):  # not plainly 1..n: the full check says why
                self.ranks(el.findall("CCLQA_RESULT/ANSWER"), "answer", topic_id)
            topics.append(model.CCLQATopic(topic_id, [model.Answer(*a) for a in answers]))
        return topics


def _plain_ranking(docs: list) -> list[model.RetrievedDoc] | None:
    """The documents of a schema-valid ranking (RANK and SCORE are numbers, DOCID is there) in one
    pass, when it has nothing to report: ranks 1..n in order, no document twice; else None, and the
    general reading says what is wrong. Half the time of an IR4QA run's reading was spent here."""
    ranked = [(int(attrib["RANK"]), attrib["DOCID"], attrib.get("SCORE")) for attrib in (d.attrib for d in docs)]
    if any(rank != i for i, (rank, _docid, _score) in enumerate(ranked, 1)) or \
            len({docid for _rank, docid, _score in ranked}) != len(ranked):
        return None
    return [model.RetrievedDoc(rank, docid, None if score is None else float(score)) for rank, docid, score in ranked]


def read_loaded(loaded: LoadedXml, format_name: str | None = None):
    """Validate a parsed file and build its model object; return (object, warnings)."""
    from sepia.formats.stream import read_clean_run  # it reads with this module's reader

    run = read_clean_run(loaded, format_name)
    if run is not None:  # a valid run, read without its whole tree
        return run, []
    root = loaded.root
    if root.tag != "TOPIC_SET":
        raise FormatError([loaded.problem(root, f"root element is <{root.tag}>, expected <TOPIC_SET>")])
    format_name = format_name or detect_format(root)
    if format_name is None:
        raise FormatError([loaded.problem(root, "cannot tell the format (a run file without TOPICs): "
                                                "name it with --format " + "|".join(FORMATS))])
    if format_name not in FORMATS:
        raise ValueError(f"unknown format {format_name!r}")
    problems = schema_problems(loaded, format_name)
    reader = _Reader(loaded, schema_valid=not problems)
    if format_name in ("topic", "gold"):
        obj = getattr(reader, format_name)(root)
    else:
        obj = reader.run(root, loaded.path, format_name)
    problems += capped(reader.problems)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise FormatError(problems)
    return obj, problems


def read_file(path: str | Path, format: str | None = None, max_bytes: int | None = None):
    """Read a SEPIA XML file of any format (detected when not given). Raises FormatError."""
    obj, _warnings = read_loaded(load_xml(path, max_bytes), format)
    return obj


def read_bytes(data: bytes, format: str | None = None, name: str = "<input>"):
    obj, _warnings = read_loaded(parse_xml(data, name), format)
    return obj


def expect(obj, cls, path) -> object:
    """Check that a file read with auto-detection is of the kind the caller needs."""
    if not isinstance(obj, cls):
        raise FormatError([Problem(str(path), 1, 1, f"expected a {cls.__name__} file, got a {type(obj).__name__}")])
    return obj
