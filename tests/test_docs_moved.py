"""tools/docs_moved.py finds text a docs reorganisation lost, and only that."""
import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location("docs_moved", Path(__file__).resolve().parents[1] / "tools" / "docs_moved.py")
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)

BEFORE = {"a.md": "# A\n\nWhat it does. Measured on\nthe sample: 0.5 s.\n\n```\n$ sepia x\nvalue 0.667\n```\n\n"
                  "| k | v |\n|---|---|\n| tau | 0.710 |\n\nSee [b.md](b.md#old).\n"}


def test_moved_rewrapped_and_relinked_text_is_not_lost():
    after = {"a.md": "# A\n\nWhat it does. See [the measurements](m.md#new).\n",
             "m.md": "# M\n\nMeasured on the sample:\n0.5 s.\n\n```\n$ sepia x\n```\n\n| k | v |\n|---|---|\n| tau | 0.710 |\n\n```\nvalue 0.667\n```\n"}
    assert tool.lost(BEFORE, after) == []


def test_a_dropped_output_line_a_table_row_and_a_sentence_are_named():
    after = {"a.md": "# A\n\nWhat it does.\n\n```\n$ sepia x\nvalue 0.668\n```\n\nSee [b.md](b.md).\n"}
    assert tool.lost(BEFORE, after) == [("a.md", "Measured on the sample: 0.5 s."), ("a.md", "value 0.667"),
                                        ("a.md", "| k | v |"), ("a.md", "|---|---|"), ("a.md", "| tau | 0.710 |")]
