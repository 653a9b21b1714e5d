"""The score in [0, 1] of one (record, candidate) hit, and what it is made of.

Ranking prefers, in this order of weight: a full match over a partial one; more literal
text matched (a specific template over a generic one); an exception consistent with the
record (a panic record for ``PanicException``, the Python class a binding raises); the
repository the failing call came from (exception module, traceback frames, crate paths);
and the record whose ``versions`` include the installed binding's release.
"""


from functools import lru_cache

from typing import Callable, Dict, FrozenSet, Iterable, Mapping, NamedTuple, Optional, Tuple

from errhint import bindings
from errhint.versions import is_release, minor_of, version_key


PANIC_TYPES = ("PanicException",)
RUST_EXCEPTION_TYPES = frozenset({"ValueError", "RuntimeError", "Exception", "TypeError", "PanicException", "OSError"})
"""Builtin classes a binding turns a returned Rust error into (or a user re-raises it as)."""

GENERIC_PENALTY = 0.06
"""More than the literal-text term separates two templates of similar length, so a specific
record wins over a ``generic: true`` one whatever their lengths; still a credible match alone."""

PANIC_SITE_KINDS = frozenset(
    {"panic", "unimplemented", "todo", "unreachable", "assert", "assert_eq", "expect", "tensor_check"}
)


class Evidence(NamedTuple):
    """Where the exception came from, gathered once per lookup."""

    modules: FrozenSet[str] = frozenset()
    """Binding packages seen in exception types and traceback frames (strong)."""
    loaded: FrozenSet[str] = frozenset()
    """Binding packages imported in this process (weak)."""
    labels: Optional[Mapping[str, str]] = None
    """Repository -> release label of the installed binding (``0.4.2``, ``v0.18.0``)."""

    def repos(self) -> FrozenSet[str]:
        """The repositories the binding modules seen in the exception bring."""
        return bindings.repos_of(self.modules)

    def loaded_repos(self) -> FrozenSet[str]:
        """The repositories the imported binding packages bring."""
        return bindings.repos_of(self.loaded)

    def likely_repos(self) -> FrozenSet[str]:
        """The binding repositories the error can come from: those the exception points at,
        else the one binding imported (empty when unknown or when both are imported)."""
        strong = self.repos()
        if strong:
            return strong
        return self.loaded_repos() if len(self.loaded) == 1 else frozenset()


class Hit(NamedTuple):
    """What ranking needs about one record matched against one candidate."""

    kind: str
    """``full`` (the pattern covers the message), ``partial``, ``variant`` (only the Rust
    variant name is known to agree) or ``variant-mismatch`` (same variant, but the message
    rebuilt from its template does not match this record's pattern)."""
    coverage: float
    literal_chars: int
    """Literal text matched (the match minus its captures; for a name-only hit, required)."""
    repo: str
    error_type: str
    site_kind: Optional[str]
    error_class: Optional[str]
    versions: Tuple[str, ...]
    pulled_in_by: Tuple[str, ...]
    exc_type: str
    cand_error_type: Optional[str]
    cand_site_kinds: FrozenSet[str]
    cand_repo: Optional[str]
    variant_agrees: bool
    """The candidate was rebuilt from a Debug variant of the record's own variant name."""
    from_variant: bool
    """The candidate is a Debug variant (rebuilt or raw): a record of another variant only
    matches its text by coincidence."""
    depth: int
    weight: float
    generic: bool = False
    """The record is marked over-generic (its pattern also matches more specific records'
    messages): it ranks below a specific match of the same text."""
    cand_release: Optional[Tuple[str, Tuple[int, int]]] = None
    """The repository and (major, minor) release a Rust panic location in the text names."""


def pick_label(installed: str, labels: Iterable[str]) -> Optional[str]:
    """The newest release label not newer than the ``installed`` version (None if none is)."""
    want = version_key(installed)
    best: Optional[str] = None
    for label in labels:
        key = version_key(label)
        if is_release(label) and key <= want and (best is None or key > version_key(best)):
            best = label
    return best


def installed_labels(labels_of: Callable[[str], Iterable[str]], version_of: Callable[[str], Optional[str]]) -> Dict[str, str]:
    """Repository -> label of the installed binding, e.g. candle-nn 0.4.2 -> ``0.4.2``."""
    out: Dict[str, str] = {}
    for dist, repos in bindings.BINDINGS.values():
        version = version_of(dist)
        if not version:
            continue
        for repo, mapping in repos.items():
            label = pick_label(mapping.get(version, version), labels_of(repo))
            if label:
                out[repo] = label
    return out


def _short(exc_type: str) -> str:
    return exc_type.rsplit(".", 1)[-1]


@lru_cache(maxsize=1024)
def _record_repos(repo: str, pulled_in_by: Tuple[str, ...]) -> FrozenSet[str]:
    """The record's repository and those of the releases that pull it in (cached: a few
    hundred distinct pairs, read for every hit)."""
    return frozenset([repo] + [p.split("@", 1)[0] for p in pulled_in_by])


def score(hit: Hit, evidence: Evidence) -> float:
    """The hit's score in [0, 1]; 0.5 is the default threshold for showing a hint."""
    return clamp(raw_score(hit, evidence))


def clamp(value: float) -> float:
    """``value`` limited to [0, 1]."""
    return max(0.0, min(1.0, value))


def raw_score(hit: Hit, evidence: Evidence) -> float:
    """The score before clamping to [0, 1]: ranks two hits that both clamp to 1.0."""
    if hit.kind == "full":
        s = 0.70
    elif hit.kind == "partial":
        s = 0.40 + 0.25 * hit.coverage
    elif hit.kind == "variant":
        s = 0.40
    else:
        s = 0.30
    s += 0.14 * hit.literal_chars / (hit.literal_chars + 25.0)  # grows with every character
    if hit.variant_agrees:
        s += 0.05
    elif hit.from_variant:
        s -= 0.1

    s += _type_term(hit)

    if hit.cand_site_kinds and hit.site_kind:
        if hit.site_kind in hit.cand_site_kinds:
            s += 0.04
        elif hit.site_kind in PANIC_SITE_KINDS and hit.site_kind != "panic":
            s -= 0.05

    s += _repo_term(hit, evidence)
    s += _version_term(hit, evidence)
    s += _location_release_term(hit)
    s -= 0.02 * min(hit.depth, 3)
    if hit.generic:
        s -= GENERIC_PENALTY
    return s * hit.weight


def _type_term(hit: Hit) -> float:
    return _types_agree(hit.cand_error_type, hit.error_type, hit.exc_type, hit.error_class)


@lru_cache(maxsize=1024)
def _types_agree(cand_error_type: Optional[str], error_type: str, exc_type: str, error_class: Optional[str]) -> float:
    """Agreement between the Python exception and the record's errorType / errorClass
    (cached: a handful of exception types against a few dozen classes)."""
    term = 0.0
    if cand_error_type:
        term += 0.04 if cand_error_type == error_type else -0.12
    if not exc_type:
        return term
    short = _short(exc_type)
    builtin = "." not in exc_type
    if error_class:
        wanted = _short(error_class)
        wanted = wanted[2:] if wanted.startswith("Py") and wanted[2:3].isupper() else wanted
        return term + (0.05 if wanted == short else -0.25)
    if error_type == "panic":
        return term + (0.03 if short in PANIC_TYPES else -0.05)
    if builtin and short not in RUST_EXCEPTION_TYPES:
        return term - 0.45  # KeyError, ZeroDivisionError...: never a Rust error in disguise
    return term


def _repo_term(hit: Hit, evidence: Evidence) -> float:
    repos = _record_repos(hit.repo, hit.pulled_in_by)
    strong = evidence.repos()
    if strong or hit.cand_repo:  # the frames and modules, plus the repo the candidate names
        return 0.06 if hit.cand_repo in repos or not repos.isdisjoint(strong) else -0.15
    loaded = evidence.loaded_repos()
    if loaded:
        return 0.02 if not repos.isdisjoint(loaded) else -0.05
    return 0.0


def _location_release_term(hit: Hit) -> float:
    """A panic location in a crate of the record's repository names the release that raised
    it: a record of that release beats one the release does not have (cubecl 0.6's
    ``Unknown("..")`` is an autotune error, cubecl 0.8's an I/O error)."""
    if hit.cand_release is None or hit.cand_release[0] != hit.repo or not hit.versions:
        return 0.0
    wanted = hit.cand_release[1]
    return 0.03 if any(minor_of(v) == wanted for v in hit.versions) else -0.15


def _version_term(hit: Hit, evidence: Evidence) -> float:
    labels = evidence.labels or {}
    if hit.repo in labels:
        if not hit.versions:
            return 0.0
        return 0.04 if labels[hit.repo] in hit.versions else -0.03
    # A dependency crate's record: the release the installed binding pulls in beats other
    # releases of the crate (candle 0.4.2 pulls safetensors 0.4, whose errors read otherwise
    # than 0.7's).
    installed_parent = False
    for parent in hit.pulled_in_by:
        repo, _, version = parent.partition("@")
        if repo in labels:
            if version == labels[repo]:
                return 0.06
            installed_parent = True
    return -0.03 if installed_parent else 0.0
