"""The optional ``expected:`` block of a case: how to check an answer objectively."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from harness.model import Frozen

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


class ExpectRegex(Frozen):
    """The answer matches ``pattern`` (Python ``re.search``; ``ignore_case`` by default).

    By default the whole answer is searched; ``extract: auto`` searches only the extracted short answer.
    """

    type: Literal["regex"]
    pattern: str
    ignore_case: bool = True
    extract: ExtractMode = "whole"

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        import re

        try:
            re.compile(v)
        except re.error as exc:
            raise ValueError(f"pattern does not compile: {exc}") from None
        return v


class ExpectChoice(Frozen):
    """Multiple choice: ``answer`` is a letter of ``options`` (letter -> option text)."""

    type: Literal["choice"]
    answer: str
    options: dict[str, str]

    @model_validator(mode="after")
    def _answer_is_option(self) -> ExpectChoice:
        if self.answer not in self.options:
            raise ValueError(f"answer '{self.answer}' is not one of the options {sorted(self.options)}")
        return self


class ExpectAnyOf(Frozen):
    """Any of several acceptable answers (normalized exact match or containment)."""

    type: Literal["any_of"]
    values: list[str] = Field(min_length=1)
    extract: ExtractMode = "auto"


class ExpectPython(Frozen):
    """Python code in the answer must pass ``tests`` (assert statements) in a sandboxed subprocess.

    Args:
        function: the name the tests call (used to pick the right code block).
        tests: Python source with asserts, run after the extracted code.
        timeout_s: wall-time limit for the subprocess.
    """

    type: Literal["python"]
    function: str | None = None
    tests: str
    timeout_s: float = Field(default=5.0, gt=0, le=120)
    reference: str | None = None


Expected = Annotated[
    ExpectExact | ExpectNumeric | ExpectRegex | ExpectChoice | ExpectAnyOf | ExpectPython,
    Field(discriminator="type"),
]
