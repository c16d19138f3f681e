"""A structured, tool-shaped answer: a JSON object whose answer field is what is read (used by
:func:`harness.metrics.correctness.check_expected` for every type but ``python``).

Subjects asked for machine-readable output reply with one JSON object, alone or in a fenced
``json`` block: ``{"answer": 0.1667, "confidence": 0.9}``. The object's answer field — the first
key, in this order, of ``answer``, ``final_answer``, ``finalAnswer``, ``result``, ``value``
(case-insensitive) — holding a string, a number or a truth value is the reply that is read: a
string as written, a number as JSON writes it, ``true`` / ``false`` as those words. The other
fields (a confidence, a note) are not read. An answer that is not a single JSON object, or whose
answer field is missing, empty or a list or object, is read as written by the rules.

Only answers of at most :data:`MAX_JSON_CHARS` characters are parsed (``json.loads``, never
evaluated).

A *record* of ``key: value`` lines is read the same way: an answer of at least two non-empty lines,
every one of them ``key: value`` with a short key (at most three words or one ``snake_case`` name;
a leading list bullet allowed) and no fenced code, is read by its answer field, and ``choice``,
``verdict``, ``final`` and ``selected`` are answer fields there too (``choice: Nitrogen`` /
``share_by_volume: ~78%`` / ``runner_up: Oxygen (~21%)`` reads "Nitrogen"). With the question
known, the field the question asks for is an answer field after those (:func:`asked_field`: "Which
protocol runs on port 443?" → ``protocol``, "What is the capital of Canada?" → ``capital``, "How
many edges …" → ``edges``; a plural and its singular are one field), for a JSON object and a record
alike (``port: 443`` / ``protocol: HTTPS`` / ``transport: TCP`` reads "HTTPS").

For a yes/no question, a field named by a predicate word of the question and holding a truth
value is an answer field too (``{"stateless": true}``, ``prime: no`` for "Is 91 prime?"; only
when exactly one such field is there).

An *answer tag* — the last ``<answer>…</answer>`` (or ``<final_answer>``, ``<final>``,
``<result>``) in the answer — is read alone the same way, its content as written: ``<answer>yes
</answer>``.

A *speaker label* (:func:`without_speaker`) opening a one-speaker reply is set aside before any
rule (by :func:`harness.metrics.correctness.check_expected`, after the visible thinking): the
reply's first non-empty line opens with a role word — "Assistant", "AI", "Model", "Response",
"Chairman", "Member", "Juror", "Judge", … — optionally one identifier (a capital letter, a number,
a capitalised name) and a colon ("Model B: …", "Assistant: …", "Response 2: …"), and no other line
opens with one and no other speaker is named anywhere ("… Response B: $48"; a transcript of several
speakers keeps its labels). A transcript — a reply opening with a speaker's label and holding
another — whose last labelled turn is its chair's ("Chair:", "Chairman:", "Foreperson:",
"Moderator:", "Judge:") is read from that turn alone: "Member A: yes / Member B: no / Chair: yes"
reads "yes". So "Model A: The odd one out is
Yellow (option C)" does not name option A, and "Model B: The plural is *mice*." reads as its
sentence.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harness.metrics.text_cues import SPEAKER_ROLES, asked_words

#: The keys that hold the answer, in the order they are looked for.
ANSWER_KEYS = ("answer", "final_answer", "finalanswer", "result", "value")
#: Further answer fields of a ``key: value`` record (after :data:`ANSWER_KEYS`).
RECORD_KEYS = ("final", "verdict", "choice", "selected")
#: An answer tag: ``<answer>B</answer>`` (also ``final_answer``, ``final``, ``result``).
_TAG = re.compile(r"(?is)<(?P<tag>answer|final_answer|final|result)>(?P<value>[^<]{0,400})</(?P=tag)>")
#: The longest answer parsed as JSON.
MAX_JSON_CHARS = 20_000
_FENCE = re.compile(r"(?s)^```[ \t]*(?:json)?[ \t]*\n(?P<body>.*?)\n?```$")


def structured_answer(text: str, query: str | None = None) -> tuple[str, str] | None:
    """``(value, key)`` of a JSON object answer's or a ``key: value`` record's answer field (see the
    module docstring), else ``None``."""
    body = text.strip()
    if len(body) > MAX_JSON_CHARS:
        return None
    tags = list(_TAG.finditer(body))
    if tags and tags[-1]["value"].strip():
        return tags[-1]["value"].strip()[:400], f"<{tags[-1]['tag']}>"
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced["body"].strip()
    if not (body.startswith("{") and body.endswith("}")):
        return _record_answer(text, query)
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return _field(data, ANSWER_KEYS, query, json_values=True)


def _field(data: dict[Any, Any], keys: tuple[str, ...], query: str | None, json_values: bool) -> tuple[str, str] | None:
    """The first answer field of ``data`` among ``keys``, then the field the question asks for."""
    folded = {_fold(str(k)): k for k in data}
    wanted = [k.replace("_", " ") for k in keys]
    asked = asked_field(query)
    if asked is not None:
        wanted += [f for f in (asked, asked + "s", asked[:-1] if asked.endswith("s") else "") if f]
    truth = _truth_field(folded, data, query)
    if truth is not None:
        wanted.append(truth)
    for want in wanted:
        if want not in folded:
            continue
        value = data[folded[want]]
        if isinstance(value, bool):
            return ("true" if value else "false"), folded[want]
        if isinstance(value, int | float) and json_values:
            return json.dumps(value), folded[want]
        if isinstance(value, str) and value.strip():
            return value.strip(), folded[want]
        return None
    return None


_YES_NO_QUESTION = re.compile(
    r"(?i)^\W*(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should|must)\b"
)
_TRUTH = frozenset({"yes", "no", "true", "false"})


def _truth_field(folded: dict[str, Any], data: dict[Any, Any], query: str | None) -> str | None:
    """For a yes/no question, the one field named by a predicate word of the question whose value is
    a truth value (``{"stateless": true}`` or ``stateless: yes`` for "Is HTTP a stateless
    protocol?"), else ``None``."""
    line = next((ln for ln in (query or "").split("\n") if ln.strip()), "")
    if not _YES_NO_QUESTION.match(line):
        return None
    words = asked_words(line)
    hits = [
        key
        for key, raw in folded.items()
        if key in words
        and (isinstance(data[raw], bool) or (isinstance(data[raw], str) and data[raw].strip().casefold() in _TRUTH))
    ]
    return hits[0] if len(hits) == 1 else None


def _fold(key: str) -> str:
    """A field name folded for lookup: lower case, ``_`` / ``-`` / camelCase humps as spaces
    ("final_answer", "finalAnswer" and "Final answer" are one name; "finalanswer" stays as is)."""
    key = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key.strip())
    return " ".join(re.split(r"[\s_\-]+", key.casefold()))


_RECORD_LINE = re.compile(
    r"^[ \t]*(?:[-*•][ \t]+)?(?P<key>[A-Za-z][A-Za-z0-9_]*(?:[ \t][A-Za-z][A-Za-z0-9_]*){0,2})[ \t]*:"
    r"[ \t]*(?P<value>\S[^\n]*)$"
)


def _record_answer(text: str, query: str | None) -> tuple[str, str] | None:
    lines = [ln for ln in text.strip().split("\n") if ln.strip()]
    if len(lines) < 2 or "```" in text:
        return None
    fields: dict[str, str] = {}
    for line in lines:
        m = _RECORD_LINE.match(line)
        if m is None:
            return None
        fields.setdefault(m["key"], m["value"].strip(" \t*_`"))
    found = _field(fields, ANSWER_KEYS + RECORD_KEYS, query, json_values=False)
    if found is None or found[1].casefold() == "answer":  # "Answer: …" lines are the protocol's declared line
        return None
    return found


#: "Which <noun>", "What <noun>", "How many <noun>", "What is the <noun> of …", "Name the <noun>".
_ASKED = re.compile(
    r"(?i)\b(?:(?:which|what)(?:\s+(?:is|are|was|were)\s+(?:the|its|their|a|an))?"
    r"|how\s+many|name\s+(?:the|a|an|one))\s+(?P<noun>[a-z][a-z-]{2,})\b"
)
_NOT_FIELD = frozenset("is are was were does do did can could will would should has have of the a an one".split())


def asked_field(query: str | None) -> str | None:
    """The noun the question asks for ("Which protocol …" → "protocol", "What is the capital of …"
    → "capital", "How many edges …" → "edges"), else ``None``: the first such phrase of the
    question's first line."""
    line = next((ln for ln in (query or "").split("\n") if ln.strip()), "")
    m = _ASKED.search(line)
    if m is None or m["noun"].lower() in _NOT_FIELD:
        return None
    return m["noun"].lower()


_ROLE = SPEAKER_ROLES
#: A speaker's label opening a line: a role word, optionally one identifier (a capital letter, a
#: number, a capitalised name), then a colon and text.
SPEAKER = re.compile(
    r"(?m)^[ \t>*_]*(?i:" + _ROLE + r")(?:[ \t]+(?:[A-Z]|\d{1,2}|[A-Z][\w.-]{1,20}))?[ \t*_]*:[ \t*_]*(?=\S)"
)


#: The roles that decide for a council (its chair, a jury's foreperson, a moderator, a judge).
_DECIDER = re.compile(r"(?m)^[ \t>*_]*(?i:chair(?:man|woman|person)?|foreperson|moderator|judge)\b")
#: Another speaker named anywhere in the reply ("… Response B: $48."): a transcript, not one speaker.
_NAMED_SPEAKER = re.compile(r"(?i:" + _ROLE + r")s?[ \t]+(?:[A-Z]|\d{1,2})\b")


def without_speaker(reply: str) -> tuple[str, str | None]:
    """``reply`` without the speaker label opening it (see the module docstring), and a note saying
    which label was set aside (``None`` when nothing was)."""
    lead = reply.lstrip()
    labels = list(SPEAKER.finditer(lead))
    if len(labels) >= 2 and _DECIDER.match(lead, labels[-1].start()) and labels[0].start() == 0:
        last = labels[-1]  # a transcript closed by its chair: the chair's turn is the answer
        label = lead[last.start() : last.end()].strip(" \t*_:")
        return lead[last.end() :], f"read from the closing turn of its chair ({label!r})"
    first = SPEAKER.match(lead)
    if first is None or len(labels) > 1 or _NAMED_SPEAKER.search(lead, first.end()):
        return reply, None
    label = lead[: first.end()].strip(" \t*_:")
    return lead[first.end() :], f"read without its speaker label {label!r}"
