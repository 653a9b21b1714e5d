"""builder/literals.py: the independent count of literal error texts (issue 17 item 5)."""

from __future__ import annotations

from builder import literals as lit

SOURCE = r'''
#[derive(thiserror::Error, Debug)]
pub enum Error {
    #[error("unsupported dtype {0:?} for op {1}")]
    UnsupportedDTypeForOp(DType, &'static str),
    #[error("Metal error {0}")]
    Metal(String),
}

fn f(x: usize) -> Result<()> {
    // bail!("a commented-out message that is not code")
    if x == 0 { bail!("x must be positive, got {x}") }
    ensure!(x < 10, "x must be below ten, got {}", x);
    assert_eq!(x, 3, "x must be three: {x}");
    let v = thing().expect("the thing must be there");
    Err(crate::Error::Cuda(format!("no cuda implementation for {}", self.name()).into()))?;
    Err(Error::Msg("a \"quoted\" word\nand a second line".to_string()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn t() { assert!(ok(), "a test's own message"); panic!("test panic text") }
}

#[cfg(all(test, feature = "std", target_has_atomic = "ptr"))]
mod more_tests {
    #[test]
    fn u() { assert!(ok(), "a feature-gated test's message") }
}

#[cfg(all(feature = "std"))]
mod not_tests {
    fn g() { panic!("a library panic under a feature gate") }
}
'''


def test_every_kind_is_found_with_its_line_and_text() -> None:
    found = {(item.kind, item.text): item for item in lit.literals_of_file("candle-core/src/x.rs", SOURCE)}
    texts = {text for _, text in found}
    assert ("error_attr", "unsupported dtype {0:?} for op {1}") in found
    assert ("macro", "x must be positive, got {x}") in found
    assert ("assert", "x must be below ten, got {}") in found
    assert ("assert", "x must be three: {x}") in found
    assert ("expect", "the thing must be there") in found
    cuda = found[("error_value", "no cuda implementation for {}")]
    assert cuda.variant == "Cuda" and SOURCE.splitlines()[cuda.line - 1].lstrip().startswith("Err(crate::Error::Cuda")
    assert ("error_value", 'a "quoted" word\nand a second line') in found
    assert "a commented-out message that is not code" not in texts
    assert "a test's own message" not in texts and "test panic text" not in texts
    assert "a feature-gated test's message" not in texts
    assert ("macro", "a library panic under a feature gate") in found


def test_test_paths_are_left_out() -> None:
    files = [("crates/burn-core/tests/it.rs", 'panic!("in a test file")'), ("crates/burn-core/src/a.rs", 'panic!("in the library")')]
    assert [item.text for item in lit.literals(files)] == ["in the library"]


def test_unescape() -> None:
    assert lit.unescape(r"a\tb\\c\u{e9}") == "a\tb\\c\u00e9"
    assert lit.unescape("first \\\n        second") == "first second"


def test_a_match_arm_on_err_is_not_an_error_built() -> None:
    code = r'''
fn repr(&self) -> String {
    match (self.a(), self.b()) {
        (Err(_), Err(_)) => "Descriptor[a: unknown, b: unknown]".to_string(),
        (Err(e), Ok(b)) => format!("Descriptor[a: unknown, b: {b}]"),
        (Ok(_), _) => Err(Error::Msg("an error that is built".to_string())),
    }
}
'''
    texts = [item.text for item in lit.literals_of_file("candle-pyo3/src/onnx.rs", code)]
    assert set(texts) == {"an error that is built"}
    macros = {item.text: item.macro for item in lit.literals_of_file("a/src/x.rs", 'unreachable!("never here"); panic!("boom here")')}
    assert macros == {"never here": "unreachable", "boom here": "panic"}
