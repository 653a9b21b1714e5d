"""The Rust lexer: comments, string forms, chars vs lifetimes, positions, brackets."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.rustlex import CHAR, CLOSE, IDENT, LIFETIME, OPEN, STR, decode_escapes, lex, split_top_level

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "rust" / "lexing.rs"


@pytest.fixture(scope="module")
def lexed():
    return lex(FIXTURE.read_text(encoding="utf-8"))


def _strings(lexed):
    return [t.value for t in lexed.tokens if t.kind == STR]


def test_nested_block_comment_hides_its_string(lexed):
    assert "not a string" not in _strings(lexed)
    assert lexed.tokens[0].text == "fn"


def test_string_escapes_are_decoded(lexed):
    assert 'tab\there "quoted" A' in _strings(lexed)


def test_raw_string_keeps_quotes_and_braces(lexed):
    raw = [t for t in lexed.tokens if t.kind == STR and t.raw]
    assert [t.value for t in raw] == ['raw "with" quotes {not_a_placeholder}']


def test_backslash_newline_swallows_following_indentation(lexed):
    assert "first second" in _strings(lexed)


def test_byte_string_and_byte_char(lexed):
    assert "bytes" in _strings(lexed)
    assert any(t.kind == CHAR and t.text == "b'q'" for t in lexed.tokens)


def test_chars_versus_lifetimes(lexed):
    chars = [t.value for t in lexed.tokens if t.kind == CHAR]
    lifetimes = [t.text for t in lexed.tokens if t.kind == LIFETIME]
    assert chars[:3] == ["x", "\n", "'"]
    assert lifetimes.count("'a") == 3
    assert lifetimes.count("'outer") == 2


def test_line_numbers_are_one_based(lexed):
    fn_index = next(i for i, t in enumerate(lexed.tokens) if t.text == "lifetimes")
    assert lexed.line(fn_index) == 3
    raw_index = next(i for i, t in enumerate(lexed.tokens) if t.kind == STR and t.raw)
    assert lexed.line(raw_index) == 9


def test_brackets_are_matched(lexed):
    for i, t in enumerate(lexed.tokens):
        if t.kind == OPEN:
            assert lexed.tokens[t.match].kind == CLOSE
            assert lexed.tokens[t.match].match == i


def test_split_top_level_ignores_nested_commas():
    toks = lex('f(a, g(b, c), "x, y")').tokens
    parts = split_top_level(toks, 2, toks[1].match)
    assert [[toks[i].text for i in p] for p in parts] == [["a"], ["g", "(", "b", ",", "c", ")"], ['"x, y"']]


@pytest.mark.parametrize(
    "body, expected",
    [
        (r"a\"b", 'a"b'),
        (r"\x41\u{1F600}", "A\U0001F600"),
        ("line\\\n      next", "linenext"),
        (r"keep \q unknown", r"keep \q unknown"),
        ("no escapes", "no escapes"),
    ],
)
def test_decode_escapes(body, expected):
    assert decode_escapes(body) == expected


def test_unterminated_string_runs_to_end_without_raising():
    toks = lex('let s = "never closed').tokens
    assert toks[-1].kind == STR and toks[-1].value == "never closed"


def test_identifiers_and_raw_identifiers():
    toks = lex("r#type + r#\"s\"#").tokens
    assert toks[0].kind == IDENT and toks[0].text == "r#type"
    assert toks[-1].kind == STR and toks[-1].value == "s"
