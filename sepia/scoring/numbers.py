"""The numbers and dates a text states, for `--numbers strict` (a nugget whose numbers a response
lacks or states differently cannot match that response).

Text is NFKC-normalised first (full-width digits become ASCII). A number is a run of digits (with
thousands separators and a decimal part: `1,234.50` is 1234.5), optionally scaled by a following
万/萬 or 亿/億 (`3万` is 30000), or a run of CJK numerals (`二〇〇三` is 2003, `三十五` 35,
`一千二百` 1200); a lone CJK numeral counts only before 年, 月, 日, 号 or 號, so words such as
统一 or 一起 state no number. An English month name next to a number (`March 2020`, `15 May`) is a
date part and stands for its number (`March 2020` states 3 and 2020, as `2020-03` does): a changed
month then changes the date.
"""
from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation

_DIGITS = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "两": 2, "兩": 2}
_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_LARGE_UNITS = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
_CJK = "".join(_DIGITS) + "".join(_SMALL_UNITS) + "".join(_LARGE_UNITS)
_DATE_SUFFIX = "年月日号號"
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")

_ARABIC = r"\d+(?:,\d{3})*(?:\.\d+)?"
NUMBER_RE = re.compile(
    rf"(?P<arabic>{_ARABIC})(?P<scale>[万萬亿億])?"
    rf"|(?P<cjk>[{_CJK}]{{2,}}|[{_CJK}](?=[{_DATE_SUFFIX}]))"
    rf"|(?P<month>(?<=\d )(?:{'|'.join(MONTHS)})\b|\b(?:{'|'.join(MONTHS)})(?= \d))",
    re.IGNORECASE)


def cjk_value(numeral: str) -> int | None:
    """The value of a run of CJK numerals: positional digits (二〇〇三) or with units (三千五百万)."""
    if all(c in _DIGITS for c in numeral):
        return int("".join(str(_DIGITS[c]) for c in numeral))
    total, section, digit = 0, 0, None
    for c in numeral:
        if c in "零〇":  # a place holder between units: 一百零五 = 105
            continue
        if c in _DIGITS:
            if digit is not None:  # two digits in a row inside a unit numeral: not a number
                return None
            digit = _DIGITS[c]
        elif c in _SMALL_UNITS:
            section += (1 if digit is None else digit) * _SMALL_UNITS[c]
            digit = None
        else:  # 万 or 亿 scales the section before it: 一亿二千万 = 1 * 10^8 + 2000 * 10^4
            if not (section or digit):
                return None
            total += (section + (digit or 0)) * _LARGE_UNITS[c]
            section, digit = 0, None
    return total + section + (digit or 0)


def _arabic_value(text: str, scale: str | None) -> str | None:
    try:
        value = Decimal(text.replace(",", "")) * (_LARGE_UNITS[scale] if scale else 1)
    except InvalidOperation:
        return None
    return _plain(value)


def _plain(value: Decimal) -> str:
    """`3.50` and `3.5` and `0003.5` are one number; no exponent notation."""
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def numbers_in(text: str) -> frozenset[str]:
    """Every number the text states, normalised (`2003`, `1234.5`; `3` for March next to a number)."""
    found = set()
    for m in NUMBER_RE.finditer(unicodedata.normalize("NFKC", text)):
        if m["arabic"]:
            value = _arabic_value(m["arabic"], m["scale"])
        elif m["cjk"]:
            number = cjk_value(m["cjk"])
            value = None if number is None else str(number)
        else:
            value = str(MONTHS.index(m["month"].lower()) + 1)
        if value is not None:
            found.add(value)
    return frozenset(found)


def states_numbers_of(nugget_numbers: frozenset[str], response_numbers: frozenset[str]) -> bool:
    """Whether the response states every number of the nugget (a nugget without any always does)."""
    return nugget_numbers <= response_numbers
