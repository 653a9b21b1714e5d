"""Errors whose text a hand-written ``impl Debug`` writes (cubecl's matmul errors), and
messages built by an error type's ``new`` from a closure."""

from __future__ import annotations

import pytest
import regex

from builder.scan import FactsCache, scan_files
from builder.sources import SnapshotFiles, Source
from builder.template import synthesize, to_regex

SOURCE = r'''
use std::fmt::{Debug, Display};

pub enum SetupError {
    InvalidConfig(Box<dyn Display>),
    LineSize(String),
}

impl Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl Debug for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::InvalidConfig(err) => {
                writeln!(f, "Unable to launch because the config is invalid: {:?}", err.to_string())
            }
            SetupError::LineSize(err) => writeln!(f, "No line size fits: {err:?}"),
        }
    }
}

pub struct FormattedConfigError {}

fn validate(m: u32, w: u32) -> Result<(), SetupError> {
    if m % w != 0 {
        return Err(SetupError::InvalidConfig(Box::new(format!(
            "cubes in m {m:?} must be divisible by step {w:?}."
        ))));
    }
    Ok(())
}

fn check(planes: u32, tiles: u32) -> Result<(), Box<dyn Display>> {
    if tiles % planes != 0 {
        return Err(FormattedConfigError::new(move || {
            format!("Number of planes {planes:?} must divide number of tiles {tiles:?}.")
        }));
    }
    Ok(())
}
'''


@pytest.fixture(scope="module")
def result():
    files = SnapshotFiles(
        rust={"kernels/src/error.rs": ("sha-debug-impl", SOURCE)},
        cargo={"kernels/Cargo.toml": '[package]\nname = "kernels"\nversion = "0.1.0"\n'},
    )
    return scan_files(Source("example/kernels", "v1", "0" * 40), files, FactsCache())


def _texts(result):
    return {s.template.text for s in result.sites if s.template is not None}


def test_a_display_that_prints_debug_takes_the_debug_impls_arms(result):
    texts = _texts(result)
    assert "Unable to launch because the config is invalid: {:?}" in texts
    assert "No line size fits: {err:?}" in texts
    # the derived-Debug shape is never what this type prints
    assert not any(t.startswith("InvalidConfig(") or t.startswith("LineSize(") for t in texts)


def test_a_construction_prints_its_payload_quoted_inside_the_debug_arm(result):
    texts = _texts(result)
    wanted = 'Unable to launch because the config is invalid: "cubes in m {m:?} must be divisible by step {w:?}."'
    assert wanted in texts
    site = next(s for s in result.sites if s.template is not None and s.template.text == wanted)
    example = synthesize(site.template)
    assert regex.search(to_regex(site.template), example)


def test_an_error_types_new_with_a_closure_gives_the_closures_message(result):
    assert "Number of planes {planes:?} must divide number of tiles {tiles:?}." in _texts(result)
