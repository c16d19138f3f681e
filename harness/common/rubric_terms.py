"""The rubric's shared vocabulary (seed 004; seed 001, 2.3): dimensions, anchors, weights and their
environment variables.

A ground-floor module: it imports only :mod:`harness.common.errors` and :mod:`harness.common.weights`, so the
configuration, the council prompts, the rubric metric, the judges and the bias audit all read the
same words without importing one another.

Weights: one non-negative finite weight per dimension, summing to 1 within 0.001 (the defaults are
.35/.10/.20/.15/.20). Precedence for the weights a run uses: an explicit ``weights`` setting (CLI or
code) wins; otherwise the seed's ``LLM_COUNCIL_WEIGHT_<DIMENSION>`` variables override the config
file's ``weights:`` dimension by dimension; otherwise the file; otherwise the defaults.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from harness.common.errors import ConfigError
from harness.common.weights import check_weights

#: The five rubric dimensions, in the order prompts, schemas and reports list them.
RUBRIC_DIMENSIONS: tuple[str, ...] = ("accuracy", "relevance", "completeness", "conciseness", "clarity")

#: The scoring anchors shown to a reviewer or judge (seed 004).
RUBRIC_ANCHORS = """Score each response from 1 to 10 on five dimensions:
- accuracy (9-10 completely accurate; 7-8 mostly accurate, minor imprecisions; 5-6 mixed, some errors;
  3-4 significant errors; 1-2 mostly incorrect or hallucinated)
- relevance (does it address the question?)
- completeness (does it cover all parts?)
- conciseness (9-10 every word adds value; 5-6 some unnecessary content; 1-2 extremely verbose)
- clarity (is it well organized and easy to follow?)"""

#: The seed's environment variables for custom weights, by dimension.
WEIGHT_ENV_VARS: dict[str, str] = {d: f"LLM_COUNCIL_WEIGHT_{d.upper()}" for d in RUBRIC_DIMENSIONS}


class RubricWeights(BaseModel):
    """Rubric dimension weights (seed 004): non-negative, summing to 1 within 0.001."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    accuracy: float = 0.35
    relevance: float = 0.10
    completeness: float = 0.20
    conciseness: float = 0.15
    clarity: float = 0.20

    @model_validator(mode="after")
    def _sum_to_one(self) -> RubricWeights:
        check_weights(self.model_dump())
        return self


def weights_error_message(exc: Exception) -> str:
    """The first line(s) a user needs from a failed :class:`RubricWeights` validation (``loc: msg``)."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err.get("loc", ()))
            msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
            parts.append(f"{loc}: {msg}" if loc else msg)
        return "; ".join(parts)
    return str(exc)


def weights_from_env(environ: Mapping[str, str], base: Mapping[str, Any] | None = None) -> dict[str, float] | None:
    """Rubric weights from the seed's ``LLM_COUNCIL_WEIGHT_<DIMENSION>`` variables.

    Args:
        environ: the environment (``os.environ``); variable names are matched case-insensitively.
        base: weights the variables override (the config file's ``weights:``); the seed's
            defaults when ``None`` or for dimensions it lacks.

    Returns:
        The full, validated weights, or ``None`` when none of the variables is set.

    Raises:
        ConfigError: naming the variable whose value is not a finite non-negative number, or the
            variables set when the resulting weights do not sum to 1 within 0.001.
    """
    wanted = {v: d for d, v in WEIGHT_ENV_VARS.items()}
    found: dict[str, tuple[str, str]] = {}
    for key, raw in environ.items():
        dim = wanted.get(key.upper())
        if dim is not None:
            found[dim] = (key, raw)
    if not found:
        return None
    values: dict[str, Any] = RubricWeights().model_dump()
    if base is not None:
        values.update(base)
    for dim, (key, raw) in found.items():
        try:
            value = float(raw.strip())
        except ValueError:
            raise ConfigError(
                f"expected a number (a weight such as 0.35), got {raw!r}", f"environment variable {key}"
            ) from None
        if not math.isfinite(value) or value < 0:
            raise ConfigError(f"expected a finite, non-negative weight, got {raw!r}", f"environment variable {key}")
        values[dim] = value
    try:
        return RubricWeights(**values).model_dump()
    except (ValidationError, TypeError) as exc:
        names = ", ".join(found[d][0] for d in RUBRIC_DIMENSIONS if d in found)
        raise ConfigError(
            f"invalid rubric weights {values!r}: {weights_error_message(exc)}", f"environment variable(s) {names}"
        ) from None
