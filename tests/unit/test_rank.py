from __future__ import annotations


import pytest

from errhint import rank
from errhint.bindings import BURN, CANDLE, WRAP_BURN
from errhint.rank import Evidence, Hit, pick_label, score

NONE = Evidence(labels={})


def hit(**kw) -> Hit:  # type: ignore[no-untyped-def]
    base = dict(
        kind="full", coverage=1.0, literal_chars=30, repo=CANDLE, error_type="exception", site_kind="bail",
        error_class=None, versions=("0.4.2", "0.6.0"), pulled_in_by=(), exc_type="ValueError",
        cand_error_type="exception", cand_site_kinds=frozenset(), cand_repo=None, variant_agrees=False, from_variant=False,
        depth=0, weight=1.0,
    )
    base.update(kw)
    return Hit(**base)  # type: ignore[arg-type]


def test_full_beats_partial_beats_variant_only() -> None:
    assert score(hit(), NONE) > score(hit(kind="partial", coverage=0.9), NONE) > score(hit(kind="partial", coverage=0.2), NONE)
    assert score(hit(), NONE) > score(hit(kind="variant", coverage=0.0), NONE)
    assert score(hit(kind="variant"), NONE) > score(hit(kind="variant-mismatch"), NONE)


def test_a_debug_variant_prefers_records_of_that_variant() -> None:
    plain = score(hit(), NONE)
    assert score(hit(from_variant=True, variant_agrees=True), NONE) > plain > score(hit(from_variant=True), NONE)


def test_more_literal_text_ranks_higher() -> None:
    assert score(hit(literal_chars=50), NONE) > score(hit(literal_chars=10), NONE)
    assert rank.raw_score(hit(literal_chars=101), NONE) > rank.raw_score(hit(literal_chars=100), NONE)
    assert score(hit(literal_chars=10_000), NONE) - score(hit(literal_chars=60), NONE) < 0.05  # bounded


def test_panic_records_prefer_panic_exceptions() -> None:
    panic_rec = dict(error_type="panic", site_kind="unimplemented", cand_error_type="panic")
    as_panic = score(hit(exc_type="pyo3_runtime.PanicException", **panic_rec), NONE)
    as_value = score(hit(exc_type="ValueError", **dict(panic_rec, cand_error_type="exception")), NONE)
    assert as_panic > as_value


def test_builtin_python_errors_are_not_rust_errors() -> None:
    assert score(hit(exc_type="KeyError"), NONE) < 0.5 <= score(hit(exc_type="ValueError"), NONE)
    assert score(hit(exc_type="ZeroDivisionError"), NONE) < 0.5
    # a user or binding class is neutral
    assert score(hit(exc_type="mylib.TrainingError"), NONE) == score(hit(exc_type="ValueError"), NONE)


def test_error_class_must_agree() -> None:
    py = dict(error_class="IndexError", site_kind="python_raise")
    assert score(hit(exc_type="IndexError", **py), NONE) > score(hit(exc_type="KeyError", **py), NONE) + 0.2
    assert score(hit(exc_type="ValueError", error_class="PyValueError"), NONE) > score(hit(exc_type="TypeError", error_class="PyValueError"), NONE)


def test_site_kind_agreement() -> None:
    todo = frozenset({"todo"})
    assert score(hit(site_kind="todo", cand_site_kinds=todo), NONE) > score(hit(site_kind="unreachable", cand_site_kinds=todo), NONE)


def test_repository_evidence() -> None:
    from_candle = Evidence(modules=frozenset({"candle"}), labels={})
    assert score(hit(repo=CANDLE), from_candle) > score(hit(repo=BURN), from_candle)
    pulled = hit(repo="huggingface/safetensors", pulled_in_by=("huggingface/candle@0.4.2",))
    assert score(pulled, from_candle) > score(hit(repo=BURN), from_candle)
    loaded = Evidence(loaded=frozenset({"pyburn"}), labels={})
    assert score(hit(repo=BURN), loaded) > score(hit(repo=CANDLE), loaded)
    assert score(hit(repo=BURN, cand_repo=BURN), NONE) > score(hit(repo=CANDLE, cand_repo=BURN), NONE)


def test_installed_version_is_preferred() -> None:
    ev = Evidence(labels={CANDLE: "0.4.2"})
    assert score(hit(versions=("0.4.2",)), ev) > score(hit(versions=("0.9.1", "0.11.0")), ev)
    dep = hit(repo="huggingface/safetensors", pulled_in_by=("huggingface/candle@0.4.2",))
    other = dep._replace(pulled_in_by=("huggingface/candle@0.11.0",))
    assert score(dep, ev) > score(other, ev)


def test_depth_and_weight_lower_the_score() -> None:
    assert score(hit(depth=2), NONE) < score(hit(depth=0), NONE)
    assert score(hit(weight=0.9), NONE) < score(hit(), NONE)


def test_raw_score_orders_hits_that_clamp_to_one() -> None:
    strong = Evidence(modules=frozenset({"candle"}), labels={CANDLE: "0.4.2"})
    a = hit(literal_chars=60, variant_agrees=True, from_variant=True, cand_repo=CANDLE, versions=("0.4.2",),
            cand_site_kinds=frozenset({"bail"}))
    b = a._replace(literal_chars=45)
    assert score(a, strong) == score(b, strong) == 1.0
    assert rank.raw_score(a, strong) > rank.raw_score(b, strong)


def test_score_stays_in_unit_interval() -> None:
    best = hit(literal_chars=999, variant_agrees=True, cand_site_kinds=frozenset({"bail"}), cand_repo=CANDLE)
    assert 0.0 <= score(best, Evidence(modules=frozenset({"candle"}), labels={CANDLE: "0.4.2"})) <= 1.0
    worst = hit(kind="variant", literal_chars=0, exc_type="KeyError", cand_error_type="panic", depth=9, weight=0.1)
    assert score(worst, Evidence(modules=frozenset({"pyburn"}), labels={})) >= 0.0


@pytest.mark.parametrize(
    "installed, labels, expected",
    [
        ("0.4.2", ["0.4.2", "0.6.0", "0.8.0"], "0.4.2"),
        ("0.5.1", ["0.4.2", "0.6.0", "0.8.0"], "0.4.2"),
        ("0.18.0", ["v0.13.0", "v0.16.0", "v0.18.0", "v0.20.0"], "v0.18.0"),
        ("0.19.1", ["v0.13.0", "v0.16.0", "v0.18.0", "v0.20.0"], "v0.18.0"),
        ("0.1.0", ["0.4.2"], None),
    ],
)
def test_pick_label(installed: str, labels: list, expected: str) -> None:
    assert pick_label(installed, labels) == expected


def test_installed_labels_maps_bindings_to_repos() -> None:
    versions = {"candle-nn": "0.4.2", "pyburn": "0.1.7"}
    labels = {CANDLE: ["0.4.2", "0.6.0"], BURN: ["v0.16.0", "v0.18.0", "v0.20.0"], WRAP_BURN: ["v0.1.7"]}
    got = rank.installed_labels(lambda repo: labels.get(repo, []), versions.get)
    assert got == {CANDLE: "0.4.2", BURN: "v0.18.0", WRAP_BURN: "v0.1.7"}
    assert rank.installed_labels(lambda repo: labels.get(repo, []), lambda d: None) == {}


def test_the_release_the_installed_binding_pulls_in_wins() -> None:
    """safetensors 0.4 (pulled in by candle 0.4.2) over 0.7 (burn 0.20, candle 0.11), whatever
    the order of ``pulledInBy``."""
    ev = Evidence(labels={CANDLE: "0.4.2", BURN: "v0.18.0"})
    dep = dict(repo="huggingface/safetensors", versions=("v0.4.1",))
    pulled = hit(pulled_in_by=("tracel-ai/burn@v0.20.0", "huggingface/candle@0.4.2"), **dep)
    newer = hit(pulled_in_by=("tracel-ai/burn@v0.20.0", "huggingface/candle@0.11.0"), **dep)
    unrelated = hit(pulled_in_by=(), **dep)
    assert rank.raw_score(pulled, ev) > rank.raw_score(unrelated, ev) > rank.raw_score(newer, ev)
    longer_newer = hit(pulled_in_by=("huggingface/candle@0.11.0",), **dict(dep, literal_chars=34))
    assert rank.raw_score(hit(pulled_in_by=("huggingface/candle@0.4.2",), **dict(dep, literal_chars=16)), ev) > rank.raw_score(longer_newer, ev)


def test_generic_records_rank_below_specific_ones() -> None:
    specific = hit(literal_chars=20)
    generic = hit(literal_chars=28, generic=True)
    assert rank.raw_score(specific, NONE) > rank.raw_score(generic, NONE)
    assert score(generic, NONE) >= 0.5  # still a credible hint on its own


def test_a_panic_location_names_the_release_whose_records_win() -> None:
    """``.../cubecl-runtime-0.6.0/src/...`` in a pasted panic: a cubecl record of 0.6 beats one
    only later releases have; records of other repositories are not touched."""
    cubecl = "tracel-ai/cubecl"
    at = (cubecl, (0, 6))
    in_release = score(hit(repo=cubecl, versions=("v0.4.0", "v0.6.0"), cand_release=at), NONE)
    later_only = score(hit(repo=cubecl, versions=("v0.8.0", "v0.8.1"), cand_release=at), NONE)
    unknown = score(hit(repo=cubecl, versions=("v0.8.0", "v0.8.1")), NONE)
    assert in_release > unknown > later_only
    assert score(hit(cand_release=at), NONE) == score(hit(), NONE)  # a candle record


@pytest.mark.parametrize("location, expected", [
    ("/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/cubecl-runtime-0.6.0/src/tune/local.rs:155:26",
     ("tracel-ai/cubecl", (0, 6))),
    ("/home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/burn-tensor-0.18.0/src/tensor/api/check.rs:1:1",
     (BURN, (0, 18))),
    ("C:\\Users\\u\\.cargo\\registry\\src\\index.crates.io-1\\candle-core-0.4.2\\src\\shape.rs:12:5", (CANDLE, (0, 4))),
    ("/root/.cargo/registry/src/index.crates.io-1/wgpu-core-25.0.2/src/device/mod.rs:1:1", None),
    ("src/main.rs:3:5", None),
    (None, None),
])
def test_release_of_a_cargo_registry_location(location, expected) -> None:  # type: ignore[no-untyped-def]
    from errhint.bindings import release_of_location

    assert release_of_location(location) == expected
