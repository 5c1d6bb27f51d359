"""Small defects: the binary-weights warning, Krippendorff's ratio level on negative values, judgments
naming nuggets the gold standard lacks, and the tokenizer's character classes as the README lists them."""
from __future__ import annotations

import unicodedata
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.model import GoldNugget
from sepia.metaeval.agreement import krippendorff_alpha
from sepia.text.tokenize import Tokenizer
from sepia.scoring.weights import nugget_weights

ROOT = Path(__file__).resolve().parents[1]
CS = ROOT / "corpora" / "cs"


def test_binary_weights_warning_tells_no_majority_from_no_vote():
    split = [GoldNugget("N1", "a", votes=[("x", True), ("y", False)]),
             GoldNugget("N2", "b", votes=[("x", False), ("y", True)])]
    weights, warnings = nugget_weights(split, "binary")
    assert weights == [1.0, 1.0]
    assert warnings == ["no nugget has a majority of vital votes (binary weights), so every nugget weighs 1"]
    none = [GoldNugget("N1", "a", votes=[("x", False)])]
    assert nugget_weights(none, "binary")[1] == ["no nugget has a vital vote, so every nugget weighs 1"]
    assert nugget_weights(split, "pyramid")[1] == []


def test_krippendorff_ratio_refuses_negative_values():
    data = np.array([[-1.0, 2.0, 3.0, np.nan], [-1.0, 2.0, 4.0, 1.0], [0.0, 2.0, 3.0, 1.0]])
    with pytest.raises(ValueError, match="ratio level needs values of 0 or more"):
        krippendorff_alpha(data, "ratio")
    # interval alpha needs no sign and is unchanged by a shift of every value
    assert krippendorff_alpha(data, "interval") == pytest.approx(krippendorff_alpha(data + 5, "interval"))
    assert np.isfinite(krippendorff_alpha(data + 1, "ratio"))


def _judgments_with_unknown(tmp_path) -> Path:
    lines = (CS / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    first = lines[1].split("\t")
    unknown = first[:3] + ["N999"] + first[4:]
    path = tmp_path / "j.tsv"
    path.write_text("\n".join(lines + ["\t".join(unknown)]) + "\n", encoding="utf-8")
    return path, len(lines) + 1, first


def test_validate_warns_about_nuggets_the_gold_lacks(tmp_path):
    path, line, first = _judgments_with_unknown(tmp_path)
    result = CliRunner().invoke(main, ["validate", str(path), "--gold", str(CS / "gold.xml")])
    assert result.exit_code == 0, result.output  # a warning, the file is still valid
    column = len(first[0]) + len(first[1]) + len(first[2]) + 4
    assert (f"{path}:{line}:{column}: warning: topic {first[0]} has no nugget N999 in the gold standard "
            f"{CS / 'gold.xml'}") in result.output
    quiet = CliRunner().invoke(main, ["validate", str(CS / "judgments.tsv"), "--gold", str(CS / "gold.xml")])
    assert quiet.exit_code == 0 and "warning" not in quiet.output
    no_gold = CliRunner().invoke(main, ["validate", str(path)])
    assert no_gold.exit_code == 0 and "warning" not in no_gold.output


def test_evaluate_warns_about_nuggets_the_gold_lacks(tmp_path):
    path, _, first = _judgments_with_unknown(tmp_path)
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                       "--matcher", "human", "--judgments", str(path)])
    assert result.exit_code == 0, result.output
    assert f"warning: the judgments name 1 nuggets the gold standard lacks (ignored): {first[0]} N999" in result.stderr


# The README's list of the tokenizer's classes, character by character.
UNIGRAMS = "漢字㐀𠀀丽々〆〇〻あゝゞゟアーヽヾヿㇰ𛀁한ᄀㄱꥠힰ"


@pytest.mark.parametrize("char", list(UNIGRAMS))
def test_each_unigram_class_is_a_token_of_its_own(char):
    """Each character, as NFKC leaves it (ゟ is より, ヿ is コト, ㄱ is ᄀ), is one token per character."""
    normal = list(unicodedata.normalize("NFKC", char))
    assert Tokenizer().tokens(f"x{char}{char}y") == ["x", *normal, *normal, "y"]


@pytest.mark.parametrize("text, tokens", [
    ("ラーメン", ["ラ", "ー", "メ", "ン"]),        # the long vowel mark is a unigram
    ("人々〻", ["人", "々", "〻"]),                 # iteration marks too
    ("⼈⺟", ["人", "母"]),                          # Kangxi radicals become ideographs under NFKC
    ("⻘⺀", []),                                    # radicals without a decomposition are symbols: no token
    ("・゠「」。、", []),                            # CJK punctuation is not a token
    ("ｶﾞ", ["ガ"]),                                 # half-width kana: NFKC composes them
    ("cafe\u0301 naïve", ["café", "naïve"]),        # a mark that composes joins its letter
    ("नमस्ते", ["नमस", "त"]),                        # marks that cannot compose split a word
    ("x_y Ⅻ ①", ["x", "y", "xii", "1"]),           # underscore splits; NFKC turns numerals into words
])
def test_tokenizer_classes_as_documented(text, tokens):
    assert Tokenizer().tokens(text) == tokens
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for char in text:
        if unicodedata.category(char).startswith(("L", "M")) and char in UNIGRAMS:
            assert char in readme


def test_readme_lists_every_unigram_class():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for needle in ("U+3005", "U+303B", "U+30FC", "U+3099", "U+2F00", "U+2E80", "U+AC00", "U+1100"):
        assert needle in readme, needle
