"""The `sepia` command. Sub-commands live in their own modules and load only when called,
so `sepia validate` does not pay for the Japanese tokenizer."""
from __future__ import annotations

import importlib

import click

from sepia import __version__

# name -> "module:attribute" of a click command or group
COMMANDS = {
    "validate": "sepia.commands.validate:validate",
    "evaluate": "sepia.commands.evaluate:evaluate",
    "stats": "sepia.commands.stats:stats",
    "convert": "sepia.commands.convert:convert",
    "import": "sepia.commands.store:import_",
    "export": "sepia.commands.store:export",
    "db": "sepia.commands.store:db",
    "demo": "sepia.commands.demo:demo",
    "evaluate-ir4qa": "sepia.commands.ir4qa:evaluate_ir4qa_command",
    "evaluate-qa": "sepia.commands.qa:evaluate_qa_command",
    "pool": "sepia.commands.pool:pool",
    "control": "sepia.commands.control:control",
    "corpus": "sepia.commands.corpus:corpus",
    "index": "sepia.commands.index:index",
    "search": "sepia.commands.search:search",
    "serve": "sepia.commands.serve:serve",
    "user": "sepia.commands.user:user",
    "gold": "sepia.commands.gold:gold",
    "metaeval": "sepia.commands.metaeval:metaeval",
    "agreement": "sepia.commands.agreement:agreement",
    "matcher": "sepia.commands.matcher:matcher",
    "submit": "sepia.commands.submit:submit",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attribute = target.split(":")
        return getattr(importlib.import_module(module), attribute)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sepia")
def main() -> None:
    """SEPIA: nugget-based evaluation of question answering (NTCIR ACLIA style)."""
