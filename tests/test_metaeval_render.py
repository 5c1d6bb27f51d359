"""Plain-text tables line up by display width (CJK characters take two terminal columns)."""
from sepia.metaeval.render import align
from sepia.text.columns import display_width


def test_display_width_counts_wide_characters_twice():
    assert display_width("abc") == 3
    assert display_width("日本語") == 6          # wide
    assert display_width("ＡＢ") == 4            # fullwidth
    assert display_width("ｶﾀｶﾅ") == 4           # halfwidth katakana: one column each
    assert display_width("e\u0301") == 1         # combining accent takes no column


def test_align_pads_chinese_and_japanese_cells_by_display_width():
    lines = align([["topic", "score"], ["什么是人工智能", "0.5"], ["東京タワー", "0.25"], ["ACLIA", "1"]])
    # every line has the same display width, and the right-aligned column ends in the same place
    assert len({display_width(line) for line in lines}) == 1
    # column 1 is 14 columns wide (7 wide characters), column 2 is 5 ("score")
    assert lines == ["  topic           score",
                     "  什么是人工智能    0.5",
                     "  東京タワー       0.25",
                     "  ACLIA               1"]
