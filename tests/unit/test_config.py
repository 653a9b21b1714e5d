"""Options: env defaults, configure(), per-call overrides, colour rules."""

from __future__ import annotations

import io

import pytest

from errhint import config

pytestmark = pytest.mark.usefixtures("clean_errhint")


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_env_sets_verbosity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRHINT_VERBOSITY", "full")
    config.reset()
    assert config.current().verbosity == "full"


def test_bad_env_verbosity_falls_back_to_brief(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRHINT_VERBOSITY", "loud")
    config.reset()
    assert config.current().verbosity == "brief"


@pytest.mark.parametrize("value, expected", [("0", False), ("off", False), ("1", True), ("", True)])
def test_kill_switch(monkeypatch: pytest.MonkeyPatch, value: str, expected: bool) -> None:
    monkeypatch.setenv("ERRHINT", value)
    assert config.enabled() is expected


def test_configure_validates_and_normalises() -> None:
    opts = config.configure(limit=5, repos="huggingface/candle", paths=["a.jsonl"])
    assert (opts.limit, opts.repos, opts.paths) == (5, ("huggingface/candle",), ("a.jsonl",))
    assert config.current() is opts
    with pytest.raises(ValueError):
        config.configure(verbosity="loud")
    with pytest.raises(TypeError):
        config.configure(colour=True)
    assert config.current() is opts


def test_merged_overrides_do_not_change_current() -> None:
    base = config.current()
    assert config.merged(limit=1).limit == 1
    assert config.current() is base


def test_merged_with_the_values_in_force_is_the_current_options() -> None:
    base = config.current()
    assert config.merged(limit=base.limit, min_score=base.min_score, verbosity=base.verbosity) is base
    with pytest.raises(ValueError):  # equal to the limit in force, but not an int: still refused
        config.configure(limit=1) and config.merged(limit=True)
    with pytest.raises(TypeError):
        config.merged(limit=base.limit, colour=True)


def test_colour_only_on_tty_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    assert config.use_color(_Tty()) is True
    assert config.use_color(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert config.use_color(_Tty()) is False
    assert config.use_color(_Tty(), config.merged(color=True)) is False
