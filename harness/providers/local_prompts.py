"""How the embedded models are prompted: chat templates for instruct models, completion-style text for base models."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.providers.embedded import EMBEDDED
from harness.records.transcript import Message

FEW_SHOT = """Below are questions, each followed by a short, correct answer.

Question: What is the capital of France?
Answer: The capital of France is Paris.

Question: What is 7 times 8?
Answer: 7 times 8 is 56.

Question: What does a thermometer measure?
Answer: A thermometer measures temperature.

"""
#: where a base model's completion-style reply ends
STOP_COMPLETION = ["\nQuestion:", "\n\n\n"]


def completion_prompt(messages: Sequence[Message], structured: bool) -> str:
    """Turn chat messages into a completion-style prompt for a base model."""
    system = " ".join(m.content for m in messages if m.role == "system")
    user = "\n\n".join(m.content for m in messages if m.role != "system").strip()
    if structured:
        return f"{user}\n\nJSON:\n"
    if user.endswith(":"):  # the prompt already ends in its own cue (e.g. "Final answer:")
        return f"{system}\n\n{user} ".lstrip()
    prefix = f"{system}\n\n" if system else ""
    return f"{prefix}{FEW_SHOT}Question: {user}\nAnswer:"


def probe_prompt(messages: Sequence[Message]) -> str:
    """The completion-style prompt a base model is probed with: the instructions, then a blank line."""
    system = " ".join(m.content for m in messages if m.role == "system")
    user = "\n\n".join(m.content for m in messages if m.role != "system").strip()
    return (f"{system}\n\n{user}" if system else user) + "\n\n"


def prompt_tokens(llm: Any, model: str, messages: Sequence[Message]) -> list[int]:
    """The prompt's tokens: the model's own chat template (assistant turn opened) or completion-style."""
    template = llm.metadata.get("tokenizer.chat_template") if EMBEDDED[model].style == "chat" else None
    if template:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        eos_id, bos_id = llm.token_eos(), llm.token_bos()
        formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=llm._model.token_get_text(eos_id) if eos_id != -1 else "",
            bos_token=llm._model.token_get_text(bos_id) if bos_id != -1 else "",
        )
        # llama_cpp types messages as per-role TypedDicts; a Message dump has their role/content keys
        text = formatter(messages=[m.model_dump() for m in messages]).prompt  # type: ignore[misc]
        return llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
    return llm.tokenize(probe_prompt(messages).encode("utf-8"), add_bos=True, special=False)
