"""A scripted OpenAI-compatible model for throughput tests and benchmarks: replies computed from the request.

:func:`scripted_reply` is a :class:`~tests.fault_server.FaultServer` ``responder``. Each reply is a
pure function of the request body (model, seed, messages, schema), so a reply delivered to the wrong
case, member or stage would change the results, and two runs give identical results whatever order
their requests arrive in:

* free text: the question (the text after ``Question:`` when the prompt has one, else the last user
  message's first line), then ``[<first 6 hex digits of the body's sha256>]``;
* a JSON schema (ballots, rubric judges): an instance of the schema whose enum choices and array
  orders are drawn from that hash.

:func:`scripted_dataset` writes a golden YAML file of ``n`` cases whose checks pass or fail by
construction (:func:`expected_status`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml


def _digest(body: dict[str, Any]) -> bytes:
    keep = {k: body.get(k) for k in ("model", "seed", "messages", "temperature", "response_format")}
    return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).digest()


def _schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    rf = body.get("response_format")
    if not isinstance(rf, dict):
        return None
    if rf.get("type") == "json_schema":
        return (rf.get("json_schema") or {}).get("schema")
    return rf.get("schema")


def schema_instance(schema: dict[str, Any], digest: bytes, depth: int = 0) -> Any:
    """An instance of ``schema`` (the subset the harness sends) with choices drawn from ``digest``."""
    pick = digest[depth % len(digest)]
    if "enum" in schema:
        return schema["enum"][pick % len(schema["enum"])]
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: schema_instance(v, digest, depth + i + 1) for i, (k, v) in enumerate(props.items())}
    if kind == "array":
        items = schema.get("items", {})
        if "enum" in items:  # a ranking: every label once, in an order drawn from the digest
            labels = list(items["enum"])
            ordered = sorted(labels, key=lambda lb: hashlib.sha256(digest + lb.encode()).digest())
            return ordered[: schema.get("maxItems", len(ordered))]
        return [schema_instance(items, digest, depth + 1) for _ in range(schema.get("minItems", 1))]
    if kind == "integer":
        return 1 + pick % 10
    if kind == "number":
        return round((pick % 100) / 100, 2)
    if kind == "boolean":
        return bool(pick % 2)
    return f"scripted reason {digest[:3].hex()}"


def scripted_reply(body: dict[str, Any]) -> str:
    """The reply text for one request body (see the module docstring)."""
    digest = _digest(body)
    schema = _schema_of(body)
    if schema is not None:
        return json.dumps(schema_instance(schema, digest))
    users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
    text = users[-1] if users else ""
    if "Question:\n" in text:
        text = text.split("Question:\n", 1)[1]
    first = text.strip().splitlines()[0] if text.strip() else ""
    return f"{first} [{digest[:3].hex()}]"


def expected_status(i: int) -> str:
    """Case ``i``'s status through any subject answering with :func:`scripted_reply`: a third require a
    word the question does not contain (failed), the rest a word it contains (passed)."""
    return "failed" if i % 3 == 0 else "passed"


def scripted_dataset(path: Path, n: int, name: str = "scripted", word: str = "item") -> Path:
    """Write a golden dataset of ``n`` cases ``s00001``... to ``path`` (case ``i`` asks about ``<word><i>``,
    so two datasets with different words send requests that tell them apart)."""
    queries = []
    for i in range(1, n + 1):
        word_i = f"{word}{i}"
        queries.append(
            {
                "id": f"s{i:05d}",
                "query": f"What is {word_i}? Answer in one line.",
                "required_mentions": ["zebra" if expected_status(i) == "failed" else word_i],
            }
        )
    path.write_text(
        yaml.safe_dump({"golden_datasets": [{"name": name, "queries": queries}]}, sort_keys=False), encoding="utf-8"
    )
    return path
