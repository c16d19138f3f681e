"""The optional ``expected:`` block of a case: how to check an answer objectively."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool, field_validator, model_validator

from harness.common.model import Frozen

#: Which part of the answer a check looks at: ``auto`` = what :mod:`harness.metrics.extraction`
#: finds (an answer cue, a bold or boxed value, the final number, ...); ``whole`` = the whole
#: stripped answer.
ExtractMode = Literal["auto", "whole"]


class ExpectExact(Frozen):
    """The answer (after extraction) equals ``value``; ``normalize`` folds case, spaces, punctuation."""

    type: Literal["exact"]
    value: str
    normalize: bool = True
    extract: ExtractMode = "auto"


class ExpectNumeric(Frozen):
    """A number in the answer equals ``value`` within ``tolerance`` (absolute) or ``rel_tolerance``."""

    type: Literal["numeric"]
    value: float = Field(allow_inf_nan=False)
    tolerance: float = Field(default=1e-6, ge=0, allow_inf_nan=False)
    rel_tolerance: float = Field(default=0.0, ge=0, allow_inf_nan=False)
    extract: ExtractMode = "auto"

    @field_validator("value", "tolerance", "rel_tolerance", mode="before")
    @classmethod
    def _not_bool(cls, v: object) -> object:
        if isinstance(v, bool):  # YAML ``true`` would silently become 1.0
            raise ValueError(f"expected a number, got the boolean {str(v).lower()}")
        return v


class ExpectRegex(Frozen):
    """The answer matches ``pattern`` (``regex.search`` with a time limit, ``re`` syntax; ``ignore_case`` by default).

    By default (``extract`` not given) the declared answer line (``Answer: ...``) is searched when
    the answer has one, else the whole answer; ``extract: whole`` always searches the whole answer,
    ``extract: auto`` only the extracted short answer.
    """

    type: Literal["regex"]
    pattern: str
    ignore_case: bool = True
    extract: ExtractMode | None = None

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        import regex

        try:
            regex.compile(v)
        except regex.error as exc:
            raise ValueError(f"pattern does not compile: {exc}") from None
        return v


class ExpectChoice(Frozen):
    """Multiple choice: ``options`` maps letters to option texts and ``answer`` is a letter, or
    ``options`` is a list of option texts (no letters) and ``answer`` is one of those texts."""

    type: Literal["choice"]
    answer: str
    options: dict[str, str] | list[str]

    @model_validator(mode="after")
    def _answer_is_option(self) -> ExpectChoice:
        if isinstance(self.options, list):
            if len(set(self.options)) != len(self.options):
                raise ValueError("the options list repeats an option")
            if self.answer not in self.options:
                raise ValueError(f"answer {self.answer!r} is not one of the options {self.options}")
        elif self.answer not in self.options:
            raise ValueError(f"answer '{self.answer}' is not one of the options {sorted(self.options)}")
        return self

    @property
    def letters(self) -> bool:
        """Whether the options have letters the answer may use."""
        return isinstance(self.options, dict)

    @property
    def option_map(self) -> dict[str, str]:
        """key -> option text (a list's texts map to themselves)."""
        return dict(self.options) if isinstance(self.options, dict) else {t: t for t in self.options}


class ExpectBoolean(Frozen):
    """A yes/no or true/false question: the answer commits to ``value`` (yes, true, correct -> true;
    no, false, incorrect -> false)."""

    type: Literal["boolean"]
    value: StrictBool


class ExpectAnyOf(Frozen):
    """Any of several acceptable answers (normalized exact match or containment)."""

    type: Literal["any_of"]
    values: list[str] = Field(min_length=1)
    extract: ExtractMode = "auto"


class ExpectPython(Frozen):
    """Python code in the answer must pass ``tests`` (assert statements) in a sandboxed subprocess.

    Args:
        function: the name the tests call (used to pick the right code block).
        entry_point: HumanEval's name for ``function`` (give either, or both equal); when ``tests``
            define ``check(candidate)`` without calling it, ``check(<entry_point>)`` is called.
        setup: source run before the answer's code in the same module: imports and helper
            functions the task provides (HumanEval's ``prompt``).
        tests: Python source with asserts, run after the extracted code.
        timeout_s: wall-time limit for the subprocess.
    """

    type: Literal["python"]
    function: str | None = None
    entry_point: str | None = None
    setup: str | None = None
    tests: str
    timeout_s: float = Field(default=5.0, gt=0, le=120)
    reference: str | None = None

    @model_validator(mode="after")
    def _one_name(self) -> ExpectPython:
        if self.function and self.entry_point and self.function != self.entry_point:
            raise ValueError(f"function {self.function!r} and entry_point {self.entry_point!r} differ; give one")
        for name in (self.function, self.entry_point):
            if name is not None and not name.isidentifier():
                raise ValueError(f"{name!r} is not a Python identifier")
        return self

    @property
    def name(self) -> str | None:
        """The function the tests call."""
        return self.function or self.entry_point


Expected = Annotated[
    ExpectExact | ExpectNumeric | ExpectRegex | ExpectChoice | ExpectAnyOf | ExpectPython | ExpectBoolean,
    Field(discriminator="type"),
]
