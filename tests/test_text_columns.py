"""The one plain-text table renderer: widths, which columns are flush left, the indent."""
from sepia.text.columns import aligned


def test_first_columns_flush_left_the_others_flush_right():
    rows = [["LANG", "TYPE", "N", "MEAN"], ["CS", "DEF", "12", "3.5"], ["JA", "PERSON", "7", "10.25"]]
    assert aligned(rows, left=2) == ["LANG  TYPE     N   MEAN",
                                     "CS    DEF     12    3.5",
                                     "JA    PERSON   7  10.25"]
    assert aligned(rows)[2] == "JA    PERSON   7  10.25" and aligned(rows)[1] == "CS       DEF  12    3.5"


def test_indent_and_wide_characters():
    assert aligned([["run", "F3"], ["人工", "0.5"]], indent="  ") == ["  run    F3", "  人工  0.5"]
