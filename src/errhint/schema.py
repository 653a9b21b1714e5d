"""Pydantic models of the dataset: records (schemaVersion 2), line wrappers, manifest.

Imported only where records are validated (builder, user datasets, ``load_dataset``,
``errhint validate``); the lookup path on the shipped data never imports it, because
pydantic alone costs more than errhint's whole cold-start budget.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional

import regex
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic.alias_generators import to_camel

from errhint.redos import catastrophic

SCHEMA_VERSION = 2

ErrorType = Literal["exception", "panic", "compile"]
Severity = Literal["error", "warning", "fatal"]
HandlingStrategy = Literal[
    "fallback",
    "validation",
    "conversion",
    "configuration",
    "retry",
    "upgrade",
    "fix-input",
    "report",
]
SiteKind = Literal[
    "bail",
    "msg",
    "error_variant",
    "variant_construction",
    "display_arm",
    "panic",
    "unimplemented",
    "todo",
    "unreachable",
    "assert",
    "assert_eq",
    "expect",
    "tensor_check",
    "pyerr",
    "python_raise",
    "error_code",
    "io_error",
    "string_error",
]


class _Model(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown fields are kept."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        frozen=True,
    )


class VariantField(_Model):
    name: str
    debug: bool = False
    """True when the Display template prints this field with ``{:?}``."""
    type: Optional[str] = None
    """The Rust type text (``safetensors::SafeTensorError``): resolves a nested Debug value to its crate's enum."""


class Variant(_Model):
    """The Rust error-enum variant behind a message, so its Debug form can be matched."""

    enum: str
    name: str
    shape: Literal["unit", "tuple", "struct"]
    fields: List[VariantField] = Field(default_factory=list)
    display: Optional[str] = None
    transparent: bool = False


class RaisedAt(_Model):
    """Another place the same message is raised (the record links the definition or CPU path)."""

    file: str
    line: int = Field(ge=1)
    fn: Optional[str] = None
    condition: Optional[str] = None
    """When that place raises it (a clause after "when", from the source)."""


class Record(_Model):
    """One error site. Field names and meaning follow the seed records exactly."""

    id: str = Field(pattern=r"^[0-9a-f]{16}$")
    repo: str = Field(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
    slug: str = Field(min_length=1)
    error_code: Optional[str] = None
    error_message: str = Field(min_length=1)
    message_pattern: str = Field(min_length=1)
    error_type: ErrorType
    error_class: Optional[str] = None
    http_status: Optional[int] = None
    severity: Severity = "error"
    file_path: str = Field(min_length=1)
    line_number: int = Field(ge=1)
    source_code: Optional[str] = None
    source_code_start: Optional[int] = Field(default=None, ge=1)
    source_code_end: Optional[int] = Field(default=None, ge=1)
    github_url: str
    documentation: str
    trigger_scenarios: str
    common_situations: str
    solutions: List[str]
    example_fix: str
    handling_strategy: HandlingStrategy
    validation_code: Optional[str] = None
    type_guard: Optional[str] = None
    try_catch_pattern: Optional[str] = None
    prevention_tips: List[str] = Field(default_factory=list)
    tags: List[str] = Field(default_factory=list)
    background_tag: str = Field(min_length=1)
    analyzed_sha: str = Field(pattern=r"^[0-9a-f]{7,40}$")
    analyzed_at: str
    content_changed_at: Optional[str] = None
    schema_version: Literal[2]

    # Optional fields added for the engine (absent in the seeds).
    crate: Optional[str] = None
    site_kind: Optional[SiteKind] = None
    versions: Optional[List[str]] = None
    variant: Optional[Variant] = None
    pulled_in_by: Optional[List[str]] = None
    raised_at: Optional[List[RaisedAt]] = None
    site_kind_by_version: Optional[Dict[str, str]] = None
    """Per-release kind where it changed (``bail`` in 0.4.2, ``debug_assert`` in 0.11)."""
    generic: Optional[bool] = None
    """The pattern also matches the messages of several more specific records; ranked below them."""
    only_via: Optional[List[str]] = None
    """``binding.method`` names (``pyburn.mean_dim``): the record's text is a generic one (a Rust
    bounds check inside a dependency) that says something only when the failing call is one of
    these methods of that binding. It is offered for a live exception whose failing statement
    makes such a call, never for a text (``explain``, the CLI, a constructed exception)."""
    function: Optional[str] = None
    """The function around the site, with its impl type (``Tensor::matmul``)."""
    condition: Optional[str] = None
    """The condition guarding the site, as a clause after "when" (from the source)."""
    curated: Optional[bool] = None
    """False when no text was written for this template: the renderer shows facts only."""

    @field_validator("message_pattern")
    @classmethod
    def _pattern_compiles(cls, value: str, info: ValidationInfo) -> str:
        if info.context and info.context.get("trusted"):
            return value  # shipped data: the builder's gates compiled it already
        unsafe = catastrophic(value)
        if unsafe:
            raise ValueError(f"unsafe pattern: {unsafe}")
        try:
            regex.compile(value, regex.DOTALL)
        except regex.error as exc:
            raise ValueError(f"does not compile with regex: {exc}") from None
        return value

    @field_validator("github_url")
    @classmethod
    def _https(cls, value: str) -> str:
        if not value.startswith("https://"):
            raise ValueError("must be an https:// URL")
        return value

    @model_validator(mode="after")
    def _source_range(self) -> "Record":
        start, end = self.source_code_start, self.source_code_end
        if start is not None and end is not None and start > end:
            raise ValueError(f"sourceCodeStart ({start}) is after sourceCodeEnd ({end})")
        return self


class RecordLine(_Model):
    """One JSONL line: the record plus the dataset version that wrote it."""

    record: Record
    dataset_version: str


class ManifestFile(_Model):
    records: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class ManifestSource(_Model):
    repo: str
    label: str
    commit: str


class Manifest(_Model):
    dataset_version: str
    schema_version: Literal[2]
    files: Dict[str, ManifestFile]
    sources: List[ManifestSource] = Field(default_factory=list)
    build_command: Optional[str] = None


def describe_errors(exc: Any) -> List[str]:
    """Turn a pydantic ValidationError into 'field: reason' strings with camelCase names."""
    out: List[str] = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "record") or "<record>"
        out.append(f"field {loc}: {err.get('msg', 'invalid')}")
    return out
