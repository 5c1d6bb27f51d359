"""The batched softmatch (sepia.matchers.bagmatch) against a plain Counter implementation of the spec,
on random text: mixed scripts, astral characters, compatibility forms, combining marks, repeats."""
import re
import unicodedata
from collections import Counter
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sepia.formats.model import Answer, CCLQARun, CCLQATopic, GoldNugget, GoldStandard, GoldTopic, Metadata
from sepia.matchers import bagmatch
from sepia.matchers.bagmatch import normalize_joined
from sepia.scoring.evaluate import Evaluator, Settings, evaluate_runs
from sepia.matchers.binarized import BinarizedMatcher
from sepia.matchers.softmatch import SoftMatcher
from sepia.text.tokenize import Tokenizer, char_length

# Characters that stress each step: CJK and astral ideographs (𠮷, a compatibility ideograph), kana
# with (half-width) voicing marks, hangul syllables and conjoining jamo, full-width forms, Latin with
# combining accents, capital sigma (lower case depends on context), İ (lower case grows), ligatures,
# …, circled digits, superscripts, underscore, white space and punctuation.
ALPHABET = list("北京奥运会年在举行日本語東京選挙管理委員会") + [
    "\U00020bb7", "\U0002f800", "\U00030000", "\u3005", "カ", "ガ", "ｶ", "\uff9e", "\u3099", "が", "ー", "・",
    "한", "국", "\u1100", "\u1161", "\u11a8", "Ａ", "ｂ", "１", "，", "（", "a", "b", "e", "E", "\u0301", "\u0327",
    "Σ", "σ", "İ", "ﬁ", "…", "①", "²", "_", "'", " ", "\n", "\t", "\u3000", "。", "-", "2", "0", "8", "x", "y",
]
texts = st.text(alphabet=ALPHABET, max_size=40)
words = st.lists(st.sampled_from(["the", "running", "runs", "games", "having", "have", "a", "北京", "ran", "2008"]),
                 max_size=8).map(" ".join)


def reference_tokens(text: str, tokenizer: Tokenizer) -> Counter:
    return Counter(tokenizer.tokens(text))


def reference_best(nuggets: list[str], answers: list[str], tokenizer: Tokenizer, as_set: bool) -> list[float]:
    """The spec's s(n, x) = |tok(n) ∩ tok(x)| / |tok(n)| as a bag (or set), best over the answers."""
    best = []
    for nugget in nuggets:
        n = reference_tokens(nugget, tokenizer)
        if as_set:
            n = Counter(set(n))
        total = sum(n.values())
        scores = [0]
        for answer in answers:
            x = reference_tokens(answer, tokenizer)
            if as_set:
                x = Counter(set(x))
            scores.append(sum((n & x).values()))
        best.append(max(scores) / total if total else 0.0)
    return best


def as_models(topic: tuple[list[str], list[str]]) -> tuple[list[GoldNugget], list[Answer]]:
    nuggets, answers = topic
    return ([GoldNugget(f"N{i}", t) for i, t in enumerate(nuggets)],
            [Answer(i + 1, t) for i, t in enumerate(answers)])


@st.composite
def topic(draw, text=texts):
    """Nuggets, and answers that borrow pieces of them so that partial and repeated matches occur."""
    nuggets = draw(st.lists(text, min_size=1, max_size=5))
    pieces = st.sampled_from(nuggets).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, len(n)),
                                                                   st.integers(0, len(n))))
    answers = draw(st.lists(st.lists(st.one_of(pieces.map(lambda p: p[0][p[1]:p[2]]), text), max_size=4)
                            .map("".join), max_size=5))
    return nuggets, answers


@settings(max_examples=300, deadline=None)
@given(st.lists(topic(), min_size=1, max_size=4), st.booleans())
def test_batched_softmatch_equals_counters(topics, as_set):
    matcher = SoftMatcher(as_set=as_set)
    got = matcher.best_scores_many([as_models(t) for t in topics])
    assert got == [reference_best(n, a, Tokenizer(), as_set) for n, a in topics]


@settings(max_examples=100, deadline=None)
@given(st.lists(topic(), min_size=1, max_size=3), st.lists(topic(), min_size=1, max_size=3), st.booleans(),
       st.booleans())
def test_one_matcher_across_batches_with_a_growing_vocabulary(first, second, dense, small):
    # dense=False: the sorted-keys lookup that large gold standards use instead of a table;
    # small: every topic a group of its own, answers taken two at a time (as for large workloads)
    with mock.patch.object(bagmatch, "_DENSE_CELLS", bagmatch._DENSE_CELLS if dense else 0), \
            mock.patch.object(bagmatch, "_GROUP_CELLS", 1 if small else bagmatch._GROUP_CELLS), \
            mock.patch.object(bagmatch, "_SLAB", 2 if small else bagmatch._SLAB):
        matcher = SoftMatcher()
        for batch in (first, second, first, second + first):
            got = matcher.best_scores_many([as_models(t) for t in batch])
            assert got == [reference_best(n, a, Tokenizer(), False) for n, a in batch]


@settings(max_examples=150, deadline=None)
@given(topic(), st.sampled_from([0.0, 0.25, 0.5, 0.75]), st.booleans())
def test_binarized_equals_threshold_on_reference(t, theta, as_set):
    nuggets, answers = as_models(t)
    expected = [1.0 if s > theta else 0.0 for s in reference_best(*t, Tokenizer(), as_set)]
    assert BinarizedMatcher(as_set=as_set, theta=theta).scores("r", "t", nuggets, answers) == expected


@settings(max_examples=100, deadline=None)
@given(topic(words), st.booleans(), st.booleans())
def test_stemming_and_stop_words(t, stem, stopwords):
    tokenizer = Tokenizer(stem=stem, stopwords=stopwords)
    assert SoftMatcher(tokenizer).best_scores(*as_models(t)) == reference_best(*t, tokenizer, False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))),
                max_size=5))
def test_joined_normalisation_equals_one_text_at_a_time(strings):
    expected = "\x00".join(unicodedata.normalize("NFKC", s).lower() for s in strings)
    assert normalize_joined(strings) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(texts | st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))),
                max_size=5))
@example(["ΟΔΟΣ", "ΣΑ Σ"])  # final sigma (each example alone: one unsettled character sends all the
@example(["İstanbul"])  # texts the string way); a lower case of two characters
def test_code_points_from_tables_equal_the_string_steps(strings):
    expected = "\x00".join(unicodedata.normalize("NFKC", s).lower() for s in strings)
    assert bagmatch._from_code_points(bagmatch.normalized_code_points(strings)) == expected


def test_no_character_of_the_settled_blocks_is_the_second_of_a_composition():
    seconds = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))  # hangul vowel and trailing jamo
    for cp in range(0x110000):
        decomposition = unicodedata.decomposition(chr(cp)).split()
        if len(decomposition) == 2 and not decomposition[0].startswith("<"):
            seconds.add(int(decomposition[1], 16))
    assert not [hex(cp) for cp in seconds if any(lo <= cp < hi for lo, hi in bagmatch._SETTLED_BLOCKS)]


@given(st.lists(texts, max_size=5))
def test_length_of_joined_answers_is_the_sum_of_lengths(strings):
    assert char_length("".join(strings)) == sum(char_length(s) for s in strings)


def test_texts_with_nul_fall_back_to_counters():
    assert normalize_joined(["a", "b\x00"]) is None and normalize_joined([]) == ""
    nuggets, answers = as_models((["北京\x00北京"], ["北\x00京", "京京北"]))
    assert SoftMatcher().best_scores(nuggets, answers) == [0.75]


def test_topics_without_answers_or_tokens_score_zero():
    got = SoftMatcher().best_scores_many([as_models((["北京", "。"], [])), as_models((["。"], ["北京"]))])
    assert got == [[0.0, 0.0], [0.0]]
    assert SoftMatcher().best_scores_many([]) == []


def test_length_ignores_exactly_the_white_space_of_the_spec_regex():
    every_character = "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, 0x110000)))
    kept = re.sub(r"\s", "", every_character)
    assert char_length(every_character) == len(kept) == len("".join(every_character.split()))
    assert "".join(every_character.split()) == kept
    # char_length's shortcut for printable text: no white space but " " is printable
    assert [c for c in every_character if c.isspace() and c.isprintable()] == [" "]


def test_no_word_character_is_white_space():
    # bagmatch cuts word tokens with str.split, which relies on this.
    every_character = "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, 0x110000)))
    word_characters = "".join(re.findall(r"[^\W_]", every_character))
    assert word_characters.split() == [word_characters]


class PlainBinarized:
    """BINARIZED one topic at a time on the reference scores: what `evaluate` did before batching."""
    name = "binarized"

    def scores(self, run_id, topic_id, nuggets, answers):
        return [1.0 if s > 0.5 else 0.0
                for s in reference_best([n.text for n in nuggets], [a.text for a in answers], Tokenizer(), False)]


@settings(max_examples=60, deadline=None)
@given(st.lists(topic(), min_size=1, max_size=4), st.lists(st.lists(st.booleans(), min_size=4, max_size=4),
                                                          min_size=1, max_size=3))
def test_evaluate_runs_equals_topic_by_topic_scoring(topics, answered):
    gold = GoldStandard("CS", [GoldTopic(f"X-CS-{i:04d}", "DEFINITION", [], as_models(t)[0])
                               for i, t in enumerate(topics)])
    runs = [CCLQARun(Metadata(f"T{r}-CS-CS-01-T"), [CCLQATopic(f"X-CS-{i:04d}", as_models(t)[1])
                                                     for i, t in enumerate(topics) if flags[i]])
            for r, flags in enumerate(answered)]
    plain = Evaluator(gold, Settings())
    plain.matcher = PlainBinarized()
    assert [r.as_dict() for r in evaluate_runs(gold, runs)] == [r.as_dict() for r in plain.rank(runs)]
