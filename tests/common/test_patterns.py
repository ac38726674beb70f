"""`auditor.common.patterns`: patterns compiled on first use, and word lists written as tries."""

from __future__ import annotations

import contextlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.common.patterns import Folded, any_of, folded, lazy, one_of, started
from tests.helpers import ROOT, examples

_WORDS = st.lists(st.text(alphabet="abAé -", min_size=1, max_size=5), min_size=1, max_size=8)


@settings(max_examples=examples(300), deadline=None)
@given(_WORDS, st.text(alphabet="abAÉé -x", max_size=30), st.booleans())
def test_a_trie_matches_what_the_alternation_longest_first_matches(words, text, fold):
    if fold:  # under re.I, words are given in one case (`one_of`)
        words = [w.lower() for w in words]
    plain = "(?:" + "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)) + ")"
    flags = re.I if fold else 0
    for tail in ("", r"\b", "x"):  # what follows may make a longer word fail: backtracking
        expected = [(m.span(), m.group()) for m in re.finditer(plain + tail, text, flags)]
        found = [(m.span(), m.group()) for m in re.finditer(one_of(words) + tail, text, flags)]
        assert found == expected


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.text(alphabet="ab?{@/é", max_size=4), max_size=8), st.text("ab?{@/éx", max_size=30)
)
def test_any_of_finds_a_text_holding_one_of_its_strings(strings, text):
    assert (any_of(strings).search(text) is not None) == any(s in text for s in strings)


def test_one_of_is_a_trie() -> None:
    assert one_of(["jan", "january", "june"]) == "(?:j(?:an(?:uary)?|une))"
    assert re.fullmatch(one_of(["a.b", "a"]), "a.b")  # escaped: `.` is a full stop
    assert not re.fullmatch(one_of(["a.b"]), "axb")


def test_lazy_compiles_on_first_use() -> None:
    pattern = lazy(r"\d+")
    assert "search" not in vars(pattern)
    assert pattern.search("ab 12")[0] == "12"  # type: ignore[index]
    assert "search" in vars(pattern)


def _folded_patterns() -> list[Folded]:
    from auditor.reading import values, written
    from auditor.replay.approvals import replies

    found = [values._PAYMENT_TEXT, values._QUANTITY, written.MONTH_NAMED, replies._ASKS]
    return found + [p for p in written.DATES if isinstance(p, Folded)]


_PIECES = st.sampled_from(
    [
        "May",
        "MAY",
        "may ",
        "20th",
        "the ",
        "Twenty-First",
        " of ",
        "Juli",
        "3. ",
        "März",
        "Visa ",
        "ending in ",
        "7447",
        "GIFT card",
        "2 ",
        "Extra ",
        "Bags",
        "three ",
        "checked ",
        "Would you like me to ",
        "proceed",
        "Shall I ",
        "WE",
        "?",
        ". ",
        "Yes or No",
        "Sound good?",
        "Kelvin \u212a",
        "\u017f",
        "İ",
        "2024",
        ", ",
        "\n",
    ]
)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_a_folded_pattern_matches_where_re_i_matches(text: str) -> None:
    for pattern in _folded_patterns():
        folding = re.compile(pattern.pattern, re.I)
        assert [m.span() for m in pattern.finditer(text)] == [
            m.span() for m in folding.finditer(text)
        ]
        assert (pattern.search(text) is None) == (folding.search(text) is None)


def test_a_folded_pattern_is_written_in_lowercase() -> None:
    with pytest.raises(ValueError, match="lowercase: 'I'"):
        folded(r"\b(?:shall|should) (?:I|we)\b")
    assert folded(r"(?P<n>\d+)\W\S").pattern  # escapes and group names are not literals


def _declared() -> list[tuple[str, str, int]]:
    """(where, source, flags) of every pattern the package declares with `lazy` or `folded`."""
    import importlib
    import pkgutil

    import auditor
    from auditor.common.patterns import _Lazy

    found: dict[tuple[str, int], str] = {}

    def take(where: str, value: object, depth: int = 0) -> None:
        if isinstance(value, _Lazy):
            source, flags = value._source
            if isinstance(source, str):
                found.setdefault((source, flags), where)
        elif isinstance(value, Folded):
            take(where, value._lowered, depth)
            take(where, value._folding, depth)
        elif depth < 2 and isinstance(value, tuple | list | frozenset | set):
            for item in value:
                take(where, item, depth + 1)
        elif depth < 2 and isinstance(value, dict):
            for item in value.values():
                take(where, item, depth + 1)

    for info in pkgutil.walk_packages(auditor.__path__, "auditor."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            take(f"{info.name}.{name}", value)
    return sorted((where, source, flags) for (source, flags), where in found.items())


def _texts() -> list[str]:
    """Every string value of the fixtures' JSON and JSON Lines files, and each of their lines."""
    import orjson

    texts: set[str] = set()

    def strings(value: object) -> None:
        if isinstance(value, str):
            texts.add(value[:4000])
        elif isinstance(value, dict):
            for item in value.values():
                strings(item)
        elif isinstance(value, list):
            for item in value:
                strings(item)

    for path in sorted((ROOT / "fixtures").rglob("*")):
        if path.suffix not in (".json", ".jsonl", ".txt", ".md") or path.stat().st_size > 2**20:
            continue
        data = path.read_bytes()
        for line in data.splitlines():
            texts.add(line.decode("utf-8", "replace")[:4000])
            with contextlib.suppress(orjson.JSONDecodeError):
                strings(orjson.loads(line))
        with contextlib.suppress(orjson.JSONDecodeError):
            strings(orjson.loads(data))
    return sorted(texts)


def test_every_declared_pattern_started_finds_what_it_finds_as_written() -> None:
    texts = _texts()
    led = 0
    for where, source, flags in _declared():
        lead = started(source, flags)
        if lead == source:
            continue
        led += 1
        written, fast = re.compile(source, flags), lazy(source, flags)
        assert re.compile(lead, flags).groupindex == written.groupindex, where
        assert fast.groupindex == written.groupindex, where
        for text in texts:
            expected = [(m.span(), m.groups()) for m in written.finditer(text)]
            assert [(m.span(), m.groups()) for m in fast.finditer(text)] == expected, (where, text)
    assert led >= 40  # the check is not empty: most patterns of text are led


@pytest.mark.parametrize(
    ("pattern", "flags", "expected"),
    [
        (r"\b(?:USD|EUR)\s?\d|[$€]\d", re.I, r"(?=[UE\$€])(?:\b(?:USD|EUR)\s?\d|[$€]\d)"),
        (r"(?i)#?\bfoo", 0, r"(?i)(?=[\#f])(?:#?\bfoo)"),
        (r"(?<![\d.,])\b\d{6,16}\b", 0, r"(?=[\d])(?:(?<![\d.,])\b\d{6,16}\b)"),
        (r"[A-Z]\d", 0, r"[A-Z]\d"),  # `re` skips to a capital already
        (r"a?", 0, r"a?"),  # may match nothing
        (r"^\s*Exit", 0, r"^\s*Exit"),  # anchored: one place is tried
        (r"\A\s*Exit", 0, r"\A\s*Exit"),
        (r"^\s*Exit", re.M, r"^\s*Exit"),  # at every line start: `re` checks the line
        (r"\d{4,}", 0, r"\d{4,}"),  # a class repeated: one step a place already
        (r"[\d/@]|\.\w", 0, r"[\d/@]|\.\w"),  # each alternative takes a class or literal
        (r"X{3,}|x{4,}", 0, r"(?=[Xx])(?:X{3,}|x{4,})"),  # two repeats: one step instead
        (r"\s*+exitcode", 0, r"\s*+exitcode"),  # spaces, then a literal: fast already
        (
            r"\s*(?:error|failed|denied|invalid)",
            0,
            r"(?=[\sefdi])(?:\s*(?:error|failed|denied|invalid))",
        ),
        (r"\b\w+", 0, r"\b\w+"),  # a word character starts most places
        (r"\b[^a]x", 0, r"\b[^a]x"),  # a negated class
        (r"\b(?i:x)y", 0, r"\b(?i:x)y"),  # flags of its own
        (
            r"\b(?:alpha|beta|gamma|delta|eta|iota|kappa)",
            0,
            r"\b(?:alpha|beta|gamma|delta|eta|iota|kappa)",
        ),
    ],
)
def test_started_leads_a_pattern_only_where_it_saves_steps(pattern, flags, expected) -> None:
    assert started(pattern, flags) == expected


def test_a_pattern_compiles_as_written_where_re_s_insides_differ(monkeypatch) -> None:
    from auditor.common import patterns

    class Moved:
        """A `re._compiler` whose `compile` is not what it was."""

        @staticmethod
        def compile(*args: object) -> None:
            raise AttributeError("compile")

    monkeypatch.setattr(patterns, "_compiler", Moved)
    amount = lazy(r"\b(?:USD|EUR)\s?\d+|[$€]\d+", re.I)
    assert [m.group() for m in amount.finditer("paid usd 12 and €5")] == ["usd 12", "€5"]


def test_a_led_pattern_keeps_its_source_for_what_re_keys_on_it() -> None:
    import pickle

    first, second = lazy(r"(?P<a>x)(?P<b>y)"), lazy(r"(?P<b>x)(?P<a>y)")
    # `re` caches `sub` templates by pattern: two without a source were taken for one
    assert first.sub(r"[\g<a>]", "xy") == "[x]"
    assert second.sub(r"[\g<a>]", "xy") == "[y]"
    match = lazy(r"\b(?:USD|EUR)\s?\d+", re.I).search("paid usd 12")
    assert match is not None and match.re.pattern == r"\b(?:USD|EUR)\s?\d+"
    assert pickle.loads(pickle.dumps(match.re)).search("eur 5")[0] == "eur 5"  # type: ignore[index]


def test_a_character_past_u_ffff_under_re_i_is_not_led() -> None:
    # `re` folds such a character in a literal, not in a class: a look-ahead would miss it
    for text in ("\U00010400", "\U00010428"):
        assert lazy(r"(?i)\b\U00010400").search(text) is not None
    assert started(r"(?i)\b\U00010400") == r"(?i)\b\U00010400"


def test_started_keeps_every_global_flag_first() -> None:
    lead = started(r"(?x)(?i)\b(?:foo|bar)")
    assert lead.startswith("(?x)(?i)(?=")
    assert [m.group() for m in re.finditer(lead, "FOO bar")] == ["FOO", "bar"]
