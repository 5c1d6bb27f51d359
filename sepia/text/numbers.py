"""The numbers and dates a text states, for `--numbers strict` (a nugget whose numbers a response
lacks or states differently cannot match that response).

Text is NFKC-normalised first (full-width digits become ASCII). A number is a run of digits (with
thousands separators and a decimal part: `1,234.50` is 1234.5), optionally scaled by a following
万/萬 or 亿/億 (`3万` is 30000) or thousand, million, billion, trillion (`1.5 million` is 1500000);
a year range `2014-15` states 2014 and 2015 (`2020-03` states 2020 and 3); an English number word from two to twenty or a ten
(thirty ... ninety) is its number (not "one", a pronoun as often); or a run of CJK numerals (`二〇〇三` is 2003, `三十五` 35,
`一千二百` 1200); a lone CJK numeral counts only before 年, 月, 日, 号 or 號, so words such as
统一 or 一起 state no number. An English month name next to a number (`March 2020`, `15 May`) is a
date part (also Jan, Feb, ..., Sept, with or without a full stop) and stands for its number (`March 2020` states 3 and 2020, as `2020-03` does): a changed
month then changes the date.

Of a nugget's numbers, strict asks only for those it claims (`claimed_numbers`): not those inside a
name, and one of several decades.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

_DIGITS = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "两": 2, "兩": 2}
_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_LARGE_UNITS = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
_CJK = "".join(_DIGITS) + "".join(_SMALL_UNITS) + "".join(_LARGE_UNITS)
_DATE_SUFFIX = "年月日号號"
_ENGLISH_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
# "one" is left out: "one of the largest" states no number
NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split()) if w != "_"} | {
    w: 10 * i for i, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), start=3)}
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")

_ARABIC = r"\d+(?:,\d{3})*(?:\.\d+)?"
_MONTH = "(?:{})(?:\\.(?=\\s)|\\b)".format("|".join(MONTHS + ("sept",) + tuple(m[:3] for m in MONTHS if len(m) > 4)))
_NOT_IN_A_WORD = r"(?<![A-Za-z])"  # digits glued to Latin letters (CO2, H1N1) are part of a name; 于2007年 is a year

NUMBER_RE = re.compile(
    rf"{_NOT_IN_A_WORD}(?P<range>\d{{4}})s?[-–/]'?(?P<short>\d{{2}})s?\b"  # 2014-15, 1960s-70s: both years
    rf"|{_NOT_IN_A_WORD}(?P<arabic>{_ARABIC})(?P<scale>[万萬亿億]|\s?(?:{'|'.join(_ENGLISH_SCALES)})\b)?"
    rf"|\b(?P<word>{'|'.join(NUMBER_WORDS)})\b"
    rf"|(?P<cjk>[{_CJK}]{{2,}}|[{_CJK}](?=[{_DATE_SUFFIX}]))"
    rf"|(?P<month>(?<=\d ){_MONTH}|\b{_MONTH}(?= \d))",
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
    factor = 1 if not scale else _LARGE_UNITS.get(scale) or _ENGLISH_SCALES[scale.strip().lower()]
    try:
        value = Decimal(text.replace(",", "")) * factor
    except InvalidOperation:
        return None
    return _plain(value)


def _plain(value: Decimal) -> str:
    """`3.50` and `3.5` and `0003.5` are one number; no exponent notation."""
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _values(m: re.Match) -> set[str]:
    """The numbers one match of NUMBER_RE states."""
    if m["range"]:  # 2014-15 is two years; 2020-03 a year and its month
        later = m["short"] > m["range"][2:]
        return {str(int(m["range"])), str(int(m["range"][:2] + m["short"] if later else m["short"]))}
    value: str | None
    if m["word"]:
        value = str(NUMBER_WORDS[m["word"].lower()])
    elif m["arabic"]:
        value = _arabic_value(m["arabic"], m["scale"])
    elif m["cjk"]:
        number = cjk_value(m["cjk"])
        value = None if number is None else str(number)
    else:
        value = str(month_number(m["month"]))
    return set() if value is None else {value}


def numbers_in(text: str) -> frozenset[str]:
    """Every number the text states, normalised (`2003`, `1234.5`; `3` for March next to a number)."""
    return frozenset().union(*(_values(m) for m in NUMBER_RE.finditer(unicodedata.normalize("NFKC", text))))


# A number after a capitalised word inside a sentence is part of a name ("World War 2", "Apollo 11"),
# and a date before "attack(s)" names an event ("the September 11 attacks"): neither is a claim. A
# number after a lower-case label is kept: "type 2 diabetes" is not "type 3 diabetes".
_NAME_LABEL = re.compile(r"(?<=[\w,;:] )(?!(?i:" + "|".join(MONTHS + ("sept",) + tuple(m[:3] for m in MONTHS))
                         + r")\b)[A-Z][A-Za-z]*\s*$")
_EVENT = re.compile(r"^\s*(?:/?\d{1,2}\s*)?attacks?\b", re.IGNORECASE)  # "September| 11 attacks", "9|/11 attacks"
_DECADE = re.compile(r"^\d{3}0s$")


@dataclass(frozen=True)
class Claim:
    """The numbers a nugget claims: every one of `required` must be stated; of `periods` (decades
    listed together, "in the 1960s and 1970s"), one is enough."""
    required: frozenset[str] = frozenset()
    periods: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.required or self.periods)

    def held_by(self, stated: frozenset[str]) -> bool:
        return self.required <= stated and (not self.periods or bool(self.periods & stated))


def claimed_numbers(text: str) -> Claim:
    """The numbers of `numbers_in(text)` that are part of what the text claims: not those inside a
    name, and with two or more decades as a choice of periods."""
    text = unicodedata.normalize("NFKC", text)
    required: set[str] = set()
    decades: set[str] = set()
    event_dates: set[str] = set()
    for m in NUMBER_RE.finditer(text):
        if _NAME_LABEL.search(text[:m.start()]):
            continue
        values = _values(m)
        if _EVENT.match(text[m.end():]):
            event_dates |= values
            continue
        (decades if m["arabic"] and _DECADE.match(m.group() + text[m.end():m.end() + 1]) else required).update(values)
    if len(decades) < 2:
        required |= decades
        decades = set()
    return Claim(frozenset(required - event_dates), frozenset(decades))


def month_number(name: str) -> int:
    """January = 1; `Sept.` and `Sep` = 9."""
    key = name.rstrip(".").lower()[:3]
    return next(k for k, m in enumerate(MONTHS, start=1) if m.startswith(key))
