"""Secrets held in memory, out of the environment, and redacted from anything untrusted code printed.

* :func:`seal` moves every secret-looking environment variable (a ``_``-separated part of the name
  ends with ``API_KEY``, ``APIKEY``, ``ACCESS_KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD`` or ``PASSWD``,
  any case, and the name does not end ``_ENV``: ``OPENAI_API_KEY``, ``LLM_COUNCIL_HASH_SECRET``,
  ``HF_TOKEN``, ``GH_ACCESSTOKEN``; not ``LLM_COUNCIL_ANSWER_MAX_TOKENS`` or ``TOKENIZERS_PARALLELISM``; plus names
  passed to it, e.g. ``$LLM_COUNCIL_API_KEY_ENV``) out of ``os.environ`` into this module, so no child
  process started afterwards inherits them. :func:`get` is how the harness reads such a variable:
  the environment first (a value set later, e.g. by a test), then the sealed value.
* :func:`protect_process` makes this process non-dumpable (Linux ``prctl(PR_SET_DUMPABLE, 0)``):
  ``/proc/<pid>/environ`` and ``/proc/<pid>/mem`` of the harness can then be read only by a process
  holding ``CAP_SYS_PTRACE``, not by other processes of the same user (the sandboxed code drops all
  capabilities). Removing a variable from ``os.environ`` does not erase it from the memory
  ``/proc/<pid>/environ`` shows, which is why this matters.
* :func:`redact` replaces every secret value the harness knows (sealed values and secret-looking
  variables still in the environment, 6 characters or longer) by ``[redacted $NAME]``, in each of
  its common encodings (:func:`encodings`: verbatim, reversed, hex, base64 at any alignment,
  URL-encoded). Redaction is the second line of defence: the sandbox's private file system and
  namespaces keep the key out of reach of answer code in the first place.
"""

from __future__ import annotations

import base64
import ctypes
import functools
import os
import re
import sys
from collections.abc import Iterable
from urllib.parse import quote

#: Names (any case) that hold secrets.
SECRET_NAME = re.compile(r"(?:^|_)[A-Z0-9]*(?:API_?KEY|ACCESS_?KEY|TOKEN|SECRET|PASSWORD|PASSWD)(?:_|$)", re.IGNORECASE)
#: Shorter values are not redacted (they would match ordinary words and numbers).
MIN_SECRET_LENGTH = 6
_PR_SET_DUMPABLE = 4

_sealed: dict[str, str] = {}
_remembered: dict[str, str] = {}
_protected = False


def is_secret_name(name: str) -> bool:
    """Whether an environment variable of this name holds a secret (a name ending ``_ENV`` names one: no)."""
    return bool(SECRET_NAME.search(name)) and not name.upper().endswith("_ENV")


def seal(extra_names: Iterable[str] = ()) -> list[str]:
    """Move secret variables (and ``extra_names``) from ``os.environ`` into memory; returns the names moved."""
    extra = {n for n in extra_names if n}
    moved = []
    for name in sorted(os.environ):
        if is_secret_name(name) or name in extra:
            _sealed[name] = os.environ.pop(name)
            moved.append(name)
    return moved


def get(name: str, default: str | None = None) -> str | None:
    """The variable ``name`` from the environment, else its sealed value, else ``default``."""
    value = os.environ.get(name)
    if value is not None:
        return value
    return _sealed.get(name, default)


def sealed_names() -> list[str]:
    return sorted(_sealed)


def remember(name: str, value: str) -> None:
    """Record a secret read under a name :func:`is_secret_name` does not recognise (for :func:`redact`)."""
    if value:
        _remembered[name] = value


def known_secrets() -> dict[str, str]:
    """Every secret value the harness knows, by value -> variable name (longest values first)."""
    pairs = [(v, n) for n, v in (*_sealed.items(), *_remembered.items())]
    pairs += [(v, n) for n, v in os.environ.items() if is_secret_name(n)]
    out: dict[str, str] = {}
    for value, name in sorted(pairs, key=lambda p: -len(p[0])):
        value = value.strip()
        if len(value) >= MIN_SECRET_LENGTH:
            out.setdefault(value, name)
    return out


def _base64_cores(raw: bytes) -> list[str]:
    """The characters of the base64 of ``raw`` that are the same wherever ``raw`` sits in a longer text.

    Base64 maps each 3 bytes to 4 characters, so the encoding of ``raw`` depends on its offset ``k``
    (0, 1 or 2) modulo 3 in the encoded bytes. For each ``k``, the characters ``ceil(8k/6)`` up to
    ``floor(8(k+n)/6)`` of ``b64(k zero bytes + raw)`` take all 6 of their bits from ``raw`` (``n``
    bytes); those are the characters any base64 text containing ``raw`` at that offset holds.
    """
    cores = []
    for k in range(3):
        text = base64.b64encode(bytes(k) + raw).decode("ascii")
        cores.append(text[-(-8 * k // 6) : 8 * (k + len(raw)) // 6])
    return cores


@functools.lru_cache(maxsize=64)
def encodings(value: str) -> tuple[str, ...]:
    """The forms of a secret that :func:`redact` finds, longest first: the value; reversed; its UTF-8
    bytes in lower- and upper-case hex; base64 and URL-safe base64 (:func:`_base64_cores`, each
    alignment); URL-encoded (``quote(value, safe="")``) and every byte percent-encoded (``%6b``,
    ``%6B``). Forms shorter than :data:`MIN_SECRET_LENGTH` are left out."""
    raw = value.encode("utf-8")
    cores = _base64_cores(raw)
    forms = {
        value,
        value[::-1],
        raw.hex(),
        raw.hex().upper(),
        *cores,
        *(c.replace("+", "-").replace("/", "_") for c in cores),
        quote(value, safe=""),
        "".join(f"%{b:02x}" for b in raw),
        "".join(f"%{b:02X}" for b in raw),
    }
    return tuple(sorted((f for f in forms if len(f) >= MIN_SECRET_LENGTH), key=lambda f: (-len(f), f)))


def redact_value(text: str, value: str, marker: str) -> str:
    """``text`` with every form of ``value`` (:func:`encodings`) replaced by ``marker``."""
    if len(value) < MIN_SECRET_LENGTH:
        return text.replace(value, marker) if value else text
    for form in encodings(value):
        if form in text:
            text = text.replace(form, marker)
    return text


def redact(text: str, secrets: dict[str, str] | None = None) -> str:
    """``text`` with each known secret value, in each of its :func:`encodings`, replaced by ``[redacted $NAME]``."""
    known = known_secrets() if secrets is None else secrets
    forms = sorted(
        ((form, name) for value, name in known.items() for form in encodings(value)), key=lambda p: -len(p[0])
    )
    for form, name in forms:
        if form in text:
            text = text.replace(form, f"[redacted ${name}]")
    return text


def protect_process() -> bool:
    """Make this process non-dumpable (Linux only; once). Returns whether the process is protected."""
    global _protected
    if _protected:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    _protected = True
    return True
