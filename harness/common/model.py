"""Base class for the typed, frozen records passed between stages."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """An immutable record; unknown fields are rejected so that a renamed key fails loudly."""

    model_config = ConfigDict(frozen=True, extra="forbid")
