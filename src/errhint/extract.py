"""Walk an exception graph (or a pasted traceback) into plain texts plus context.

The Rust message errhint needs is often not ``str(exc)`` of the exception the user sees: it
sits in a ``__cause__``/``__context__``, an ExceptionGroup member, or the ``RemoteTraceback``
text multiprocessing attaches as a cause.  This module collects every such text, with the
exception type it came with, and notes which binding (``candle``, ``pyburn``) the exception
types and traceback frames point at.  It keeps only strings: no exception, traceback or
frame object survives a call.
"""


import builtins

from typing import Any, FrozenSet, Iterable, List, NamedTuple, Optional, Set, Tuple

from errhint import bindings
from errhint._lazyre import LazyPattern

from errhint.constants import NOTE_MARKER

MAX_EXCEPTIONS = 64
MAX_TEXT = 256 * 1024
MAX_FRAMES = 200
UNPRINTABLE = "<exception str() failed>"
RUST_MAIN_TYPE = "Error"
"""``Error: ...`` is what a Rust ``fn main() -> Result`` prints, not a Python class: the
line stays one text (``pasted`` peels the prefix)."""


class Item(NamedTuple):
    """One text to match: a message and the exception type it was raised as ('' if unknown)."""

    text: str
    exc_type: str = ""
    depth: int = 0
    origin: str = "exception"
    """``exception``, ``cause``, ``context``, ``group``, ``note``, ``remote`` or ``text``."""


class Extraction(NamedTuple):
    """The texts of an exception graph and the binding packages seen in it."""

    items: Tuple[Item, ...]
    modules: FrozenSet[str] = frozenset()
    """Binding packages seen in exception types and traceback frames."""


# --------------------------------------------------------------------------- live exceptions


def type_name(exc_type: type) -> str:
    """``ValueError`` for builtins, else ``module.QualName`` (``pyo3_runtime.PanicException``)."""
    module = getattr(exc_type, "__module__", "") or ""
    name = getattr(exc_type, "__qualname__", None) or getattr(exc_type, "__name__", "?")
    return name if module in ("builtins", "exceptions", "") else f"{module}.{name}"


def safe_str(exc: BaseException) -> str:
    """``str(exc)`` as a plain str, or UNPRINTABLE when ``__str__`` fails in any way.

    A ``KeyError`` with one str argument gives that argument: its ``str()`` is the repr
    (quotes and escapes added), which no message pattern matches.
    """
    try:
        if isinstance(exc, KeyError) and type(exc).__str__ is KeyError.__str__:
            args = exc.args
            if len(args) == 1 and type(args[0]) is str:
                return args[0]
        text = str(exc)
        if type(text) is not str:
            # a str subclass may override slicing/strip; a non-str makes str() raise anyway
            text = str.__str__(text) if isinstance(text, str) else UNPRINTABLE
    except BaseException:  # a broken __str__ may raise anything (GeneratorExit too): never let it out
        return UNPRINTABLE
    return text


def _attr(obj: Any, name: str) -> Any:
    """``getattr(obj, name, None)`` that survives a raising property on a user's exception."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _frame_modules(tb: Any, into: Set[str]) -> None:
    count = 0
    while tb is not None and count < MAX_FRAMES:
        try:
            name = tb.tb_frame.f_globals.get("__name__", "")
        except Exception:
            name = ""
        binding = bindings.of_module(name) if isinstance(name, str) else None
        if binding:
            into.add(binding)
        tb = tb.tb_next
        count += 1


def _group_members(exc: BaseException) -> Tuple[BaseException, ...]:
    members = _attr(exc, "exceptions")
    if isinstance(members, tuple) and all(isinstance(m, BaseException) for m in members):
        group_type = getattr(builtins, "BaseExceptionGroup", None)
        if group_type is not None and isinstance(exc, group_type):
            return members
        if type(exc).__name__.endswith("ExceptionGroup"):  # the exceptiongroup backport
            return members
    return ()


def from_exception(exc: BaseException) -> Extraction:
    """Every text in the graph of ``exc``: itself, causes, contexts, group members, notes."""
    items: List[Item] = []
    modules: Set[str] = set()
    seen: Set[int] = set()
    queue: List[Tuple[BaseException, int, str]] = [(exc, 0, "exception")]
    while queue and len(seen) < MAX_EXCEPTIONS:
        current, depth, origin = queue.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        cls = type(current)
        tname = type_name(cls)
        binding = bindings.of_module(getattr(cls, "__module__", "") or "")
        if binding:
            modules.add(binding)
        _frame_modules(_attr(current, "__traceback__"), modules)
        if cls.__name__.endswith("RemoteTraceback"):
            remote = _attr(current, "tb")
            text = str.__str__(remote) if isinstance(remote, str) else safe_str(current)
            parsed = from_text(text[:MAX_TEXT])
            modules.update(parsed.modules)
            items.extend(Item(i.text, i.exc_type, depth + i.depth, "remote") for i in parsed.items)
        else:
            text = safe_str(current)
            if text != UNPRINTABLE and text.strip():
                items.append(Item(text[:MAX_TEXT], tname, depth, origin))
        for note in _notes(current):
            items.append(Item(note[:MAX_TEXT], tname, depth, "note"))
        for member in _group_members(current):
            queue.append((member, depth + 1, "group"))
        cause = _attr(current, "__cause__")
        if isinstance(cause, BaseException):
            queue.append((cause, depth + 1, "cause"))
        context = _attr(current, "__context__")
        if isinstance(context, BaseException) and context is not cause:
            queue.append((context, depth + 1, "context"))
    return Extraction(tuple(items), frozenset(modules))


def _notes(exc: BaseException) -> List[str]:
    """Notes other tools attached (errhint's own are skipped so hints never feed on hints)."""
    try:
        notes = getattr(exc, "__notes__", None)
        if not isinstance(notes, (list, tuple)):
            return []
        texts = [str.__str__(n) for n in notes if isinstance(n, str)]  # plain str: subclasses may misbehave
        return [n for n in texts if n.strip() and not is_own_note(n)]
    except Exception:
        return []


def is_own_note(note: str) -> bool:
    """Whether ``note`` is one errhint added (it starts with ``NOTE_MARKER``)."""
    return note.lstrip().startswith(NOTE_MARKER)


# --------------------------------------------------------------------------- pasted text

_TB_HEADER = LazyPattern(r"^(?:Traceback|Exception Group Traceback) \(most recent call last\):\s*$")
_CHAIN_MARKERS = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)
_GROUP_SEPARATOR = LazyPattern(r"^\s*\+[-+]*(?: \d+ -*| \.\.\. .*)?\s*$")
_GROUP_PREFIX = LazyPattern(r"^\s*(?:\+ |\| ?)")
_FILE_LINE = LazyPattern(r'^\s+File "(?P<file>[^"]*)", line \d+')
_EXC_LINE = LazyPattern(r"^(?P<type>[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(?::(?: (?P<msg>.*))?)?$")


def _looks_like_type(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last.endswith(("Error", "Exception", "Warning", "Interrupt", "Exit", "Group", "Iteration")) or (
        "." in name and last[:1].isupper()
    )


def _strip_group_boxes(lines: List[str]) -> List[Optional[str]]:
    """Remove ExceptionGroup box drawing; separators become None (section boundaries)."""
    out: List[Optional[str]] = []
    for line in lines:
        if _GROUP_SEPARATOR.match(line):
            out.append(None)
        else:
            out.append(_GROUP_PREFIX.sub("", line, count=1))
    return out


def from_text(text: str, exc_type: Optional[str] = None) -> Extraction:
    """Texts in a pasted traceback (chains and groups included), or the text itself.

    The last exception printed is the one raised last, so it gets depth 0.
    """
    text = text[:MAX_TEXT]
    raw_lines = text.splitlines()
    if exc_type and len(raw_lines) == 1:
        # one line of a known type (what ``explain(msg, exc_type=..)`` mostly gets): the
        # message itself, unless the line is a traceback marker or errhint's own note
        line = raw_lines[0]
        stripped = line.strip()
        if (stripped and stripped != '"""' and stripped not in _CHAIN_MARKERS
                and not _TB_HEADER.match(stripped) and not is_own_note(line)):
            binding = bindings.of_module(exc_type)
            return Extraction((Item(line, exc_type, 0, "text"),), frozenset([binding] if binding else ()))
    lines: List[Optional[str]] = (
        _strip_group_boxes(raw_lines) if "Exception Group Traceback" in text else list(raw_lines)
    )
    modules: Set[str] = set()
    sections: List[Tuple[str, List[str]]] = []  # (type, message lines)
    state = "outside"
    current: Optional[Tuple[str, List[str]]] = None
    preamble: List[str] = []
    for n, line in enumerate(lines):
        previous = lines[n - 1] if n else None
        if line is None or line.strip() in _CHAIN_MARKERS or _TB_HEADER.match(line.strip()):
            current = None
            state = "frames" if line is not None and _TB_HEADER.match(line.strip()) else "outside"
            continue
        if state == "frames":
            m = _FILE_LINE.match(line)
            if m:
                binding = bindings.of_path(m.group("file"))
                if binding:
                    modules.add(binding)
                continue
            if not line.strip() or line[:1].isspace():
                continue
            m = _EXC_LINE.match(line.rstrip())
            if m and _looks_like_type(m.group("type")):
                current = (m.group("type"), [m.group("msg") or ""])
            else:
                current = ("", [line])
            sections.append(current)
            state = "message"
            continue
        if state == "message" and current is not None:
            if is_own_note(line):
                state = "notes"
                continue
            current[1].append(line)
            continue
        if state == "outside":
            started = _frameless_exception(line, previous)
            if started is not None:
                # an exception printed without frames (the worker's part of a _RemoteTraceback)
                current = started
                sections.append(current)
                state = "message"
                continue
            preamble.append(line)
    items: List[Item] = []
    for i, (tname, msg_lines) in enumerate(sections):
        msg = "\n".join(_trim(msg_lines))
        if msg.strip() or tname:
            items.append(Item(msg, tname, len(sections) - 1 - i, "text"))
    if not sections:
        items.extend(_bare_message(preamble, exc_type))
    elif exc_type and items and not items[-1].exc_type:
        last = items[-1]
        items[-1] = Item(last.text, exc_type, last.depth, last.origin)
    if exc_type:
        binding = bindings.of_module(exc_type)
        if binding:
            modules.add(binding)
    for item in items:
        binding = bindings.of_module(item.exc_type)
        if binding:
            modules.add(binding)
    return Extraction(tuple(items), frozenset(modules))


def _frameless_exception(line: str, previous: Optional[str]) -> Optional[Tuple[str, List[str]]]:
    """A ``module.Type: message`` line right after the triple quote that opens a
    ``_RemoteTraceback``'s quoted worker text (concurrent.futures prints the worker's
    exception there, without its frames), as a new section; None for any other line."""
    if previous is None or previous.strip() != '"""' or not line[:1].isalpha():
        return None
    m = _EXC_LINE.match(line.rstrip())
    if m is None or m.group("msg") is None or m.group("type") == RUST_MAIN_TYPE or not _looks_like_type(m.group("type")):
        return None
    if m.group("type").endswith("RemoteTraceback"):
        return None  # the header of the quoted worker text, not an exception of its own
    return (m.group("type"), [m.group("msg")])


def _trim(lines: Iterable[str]) -> List[str]:
    out = [ln for ln in lines]
    while out and (not out[-1].strip() or out[-1].strip() == '"""'):
        out.pop()
    while out and out[0].strip() == '"""':
        out.pop(0)
    return out


def _bare_message(lines: List[str], exc_type: Optional[str]) -> List[Item]:
    """A message without a traceback; ``Type: message`` on the first line is split off."""
    kept: List[str] = []
    for line in lines:
        if is_own_note(line):
            break
        kept.append(line)
    kept = _trim(kept)
    if not kept:
        return []
    if exc_type is None:
        m = _EXC_LINE.match(kept[0].rstrip())
        if m and m.group("msg") is not None and _looks_like_type(m.group("type")) and m.group("type") != RUST_MAIN_TYPE:
            return [Item("\n".join([m.group("msg")] + kept[1:]), m.group("type"), 0, "text")]
    return [Item("\n".join(kept), exc_type or "", 0, "text")]
