"""pytest: hints on the exceptions of failing tests, shown in the failure report.

pytest loads this plugin automatically through its ``pytest11`` entry point, so it does
nothing unless asked, with any of:

* ``pytest -p errhint`` (or ``-p errhint.hooks.pytest_plugin``),
* ``pytest --errhint``,
* ``errhint = true`` in the ``[pytest]`` / ``[tool.pytest.ini_options]`` configuration.

``--no-errhint`` and ``ERRHINT=0`` turn it off again. A hook wrapper around
``pytest_runtest_makereport`` adds the hints as notes before pytest builds the report;
pytest prints notes in every ``--tb`` mode. On 3.9/3.10, where pytest's formatting does not
show notes, the hints also go into an ``errhint`` report section.
"""

from __future__ import annotations


from typing import Any, Generator, List

import pytest

from errhint.hooks import _notes
from errhint.hooks._safe import contained

PLUGIN_NAMES = ("errhint", "errhint.hooks.pytest_plugin")
_ENABLED_KEY = "errhint_enabled"


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("errhint")
    group.addoption("--errhint", action="store_true", default=None, dest="errhint",
                    help="add errhint's remediation hints to failing tests' exceptions")
    group.addoption("--no-errhint", action="store_false", dest="errhint",
                    help="do not add errhint hints, even if enabled in the configuration")
    parser.addini("errhint", type="bool", default=False,
                  help="add errhint's remediation hints to failing tests' exceptions")


def enabled(config: Any) -> bool:
    """Whether the user opted in (and did not opt out) for this run."""
    from errhint import config as errhint_config

    if not errhint_config.enabled():
        return False
    flag = config.getoption("errhint", default=None)
    if flag is not None:
        return bool(flag)
    plugins = config.getoption("plugins", default=None) or []
    if any(str(p).strip() in PLUGIN_NAMES for p in plugins):
        return True
    try:
        return bool(config.getini("errhint"))
    except (ValueError, KeyError):
        return False


def pytest_configure(config: Any) -> None:
    setattr(config, "_" + _ENABLED_KEY, bool(contained("pytest", enabled, config)))


def _wanted(excinfo: Any) -> bool:
    """Real errors only: not pytest's skip/xfail/fail/exit outcomes, not Ctrl-C."""
    exc = getattr(excinfo, "value", None)
    if not isinstance(exc, BaseException) or isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        return False
    module = type(exc).__module__ or ""
    return not module.startswith(("_pytest", "pytest"))


def _hint(item: Any, call: Any) -> List[str]:
    exc = call.excinfo.value
    _notes.hint(exc)
    return _notes.self_print_notes(exc, _notes.traceback_shows_notes())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Generator[None, Any, None]:
    notes: List[str] = []
    if getattr(item.config, "_" + _ENABLED_KEY, False) and call.excinfo is not None and _wanted(call.excinfo):
        notes = contained("pytest", _hint, item, call) or []
    outcome = yield
    if notes:
        report = outcome.get_result()
        report.sections.append(("errhint", "\n".join(notes)))

