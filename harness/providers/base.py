"""The provider protocol every model backend implements."""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any, Protocol, runtime_checkable

from harness.transcript import Completion, Message

#: The case id being evaluated, so that errors (a replay-cache miss, an endpoint failure) can
#: name it. Set by the runner around each case.
current_case: ContextVar[str] = ContextVar("current_case", default="?")


@runtime_checkable
class Provider(Protocol):
    """An async chat backend.

    ``chat`` arguments:
        model: the backend's model name.
        messages: the conversation.
        temperature, top_p: sampling parameters, always passed explicitly.
        max_tokens: generation limit.
        seed: sampling seed (deterministic where the backend supports it).
        json_schema: when given, the reply must be JSON matching this schema (grammar- or
            schema-constrained decoding where the backend supports it).
    """

    name: str

    async def chat(
        self,
        model: str,
        messages: Sequence[Message],
        *,
        temperature: float,
        max_tokens: int,
        seed: int,
        top_p: float = 1.0,
        json_schema: dict[str, Any] | None = None,
    ) -> Completion: ...

    def identity(self, model: str) -> str:
        """A stable, secret-free description of what answers for ``model`` (for cache keys)."""
        ...

    async def aclose(self) -> None: ...
