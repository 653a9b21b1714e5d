"""The chained wrapper: previous hook always called, exact restore, pass-through when superseded."""

from __future__ import annotations

import types
from typing import Any, List

import pytest

from errhint.hooks import _safe
from errhint.hooks._chain import AccessorSlot, Chained, Slot


@pytest.fixture(autouse=True)
def quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_safe, "_reported", set())
    monkeypatch.delenv("ERRHINT", raising=False)
    monkeypatch.delenv("ERRHINT_DEBUG", raising=False)


def make_owner() -> Any:
    calls: List[Any] = []
    owner = types.SimpleNamespace(hook=lambda *a: calls.append(a) or "prev-result")
    owner.calls = calls
    return owner


def test_install_wraps_and_chains() -> None:
    owner = make_owner()
    original = owner.hook
    seen: List[Any] = []
    slot = Slot(owner, "hook", "test")
    assert slot.install(lambda *a: seen.append(("before", a)) or "state", lambda st, res, *a: seen.append((st, res)))
    assert isinstance(owner.hook, Chained) and owner.hook.previous is original
    assert owner.hook(1, 2) == "prev-result"
    assert owner.calls == [(1, 2)]
    assert seen == [("before", (1, 2)), ("state", "prev-result")]


def test_install_twice_is_once() -> None:
    owner = make_owner()
    slot = Slot(owner, "hook", "test")
    slot.install(lambda *a: None)
    first = owner.hook
    assert slot.install(lambda *a: None) is False
    assert owner.hook is first


def test_uninstall_restores_exactly() -> None:
    owner = make_owner()
    original = owner.hook
    slot = Slot(owner, "hook", "test")
    slot.install(lambda *a: None)
    assert slot.uninstall() is True
    assert owner.hook is original


def test_superseded_wrapper_becomes_pass_through() -> None:
    owner = make_owner()
    slot = Slot(owner, "hook", "test")
    befores: List[Any] = []
    slot.install(lambda *a: befores.append(a))
    ours = owner.hook
    other_calls: List[Any] = []

    def other(*a: Any) -> Any:  # another tool that chains to errhint's wrapper
        other_calls.append(a)
        return ours(*a)

    owner.hook = other
    assert slot.uninstall() is False
    assert owner.hook is other, "errhint must not remove a hook installed after it"
    owner.hook("x")
    assert other_calls == [("x",)] and owner.calls == [("x",)]
    assert befores == [], "the left-behind wrapper does nothing but chain"


def test_failing_before_still_calls_previous(capsys: pytest.CaptureFixture[str]) -> None:
    owner = make_owner()
    slot = Slot(owner, "hook", "test")
    slot.install(lambda *a: 1 / 0, lambda *a: pytest.fail("after must not run when before failed"))
    assert owner.hook("e") == "prev-result"
    assert owner.calls == [("e",)]
    err = capsys.readouterr().err
    assert err == "errhint: internal error: test: ZeroDivisionError: division by zero\n"


def test_ctrl_c_in_before_still_calls_previous() -> None:
    owner = make_owner()
    slot = Slot(owner, "hook", "test")

    def before(*a: Any) -> None:
        raise KeyboardInterrupt

    slot.install(before)
    assert owner.hook("e") == "prev-result"


def test_previous_hook_errors_propagate_unchanged() -> None:
    def previous(*a: Any) -> None:
        raise LookupError("from the previous hook")

    owner = types.SimpleNamespace(hook=previous)
    Slot(owner, "hook", "test").install(lambda *a: None)
    with pytest.raises(LookupError, match="previous hook"):
        owner.hook()


def test_disabled_by_env_skips_errhint(monkeypatch: pytest.MonkeyPatch) -> None:
    owner = make_owner()
    ran: List[Any] = []
    Slot(owner, "hook", "test").install(lambda *a: ran.append(a))
    monkeypatch.setenv("ERRHINT", "0")
    owner.hook(1)
    assert ran == [] and owner.calls == [(1,)]


def test_instance_attribute_is_removed_again() -> None:
    class Shell:
        def show(self) -> str:
            return "class method"

    shell = Shell()
    slot = Slot(shell, "show", "ipython-like")
    slot.install(lambda *a: None)
    assert "show" in vars(shell) and shell.show() == "class method"
    slot.uninstall()
    assert "show" not in vars(shell), "the instance is left exactly as it was"


def test_class_attribute_binds_like_a_method() -> None:
    class Proc:
        def boot(self, x: int) -> Any:
            return (self, x)

    original = Proc.__dict__["boot"]
    seen: List[Any] = []
    slot = Slot(Proc, "boot", "class")
    slot.install(lambda self, x: seen.append(x))
    p = Proc()
    assert p.boot(3) == (p, 3) and seen == [3]
    slot.uninstall()
    assert Proc.__dict__["boot"] is original


def test_accessor_slot() -> None:
    box = {"f": lambda: "base"}
    slot = AccessorSlot(lambda: box["f"], lambda v: box.__setitem__("f", v), "acc")
    slot.install(lambda *a: None)
    assert isinstance(box["f"], Chained) and box["f"]() == "base"
    slot.uninstall()
    assert not isinstance(box["f"], Chained)


def test_install_again_after_being_replaced() -> None:
    """A tool that replaced errhint's hook without chaining: install() wraps it once more."""
    owner = make_owner()
    slot = Slot(owner, "hook", "test")
    ran: List[Any] = []
    slot.install(lambda *a: ran.append("old"))
    old = owner.hook
    replacement = lambda *a: "replacement"  # noqa: E731
    owner.hook = replacement
    assert slot.install(lambda *a: ran.append("new")) is True
    assert owner.hook.previous is replacement and old.active is False
    assert owner.hook("x") == "replacement" and ran == ["new"]
    slot.uninstall()
    assert owner.hook is replacement
