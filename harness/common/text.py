"""The one tokenizer and the one Jaccard similarity used by every metric.

Conventions follow the open-source ``llm-council-core`` package so that users get the same
figures for the same inputs: tokens are the set of ``\\b\\w{2,}\\b`` matches in lower-cased text.
"""

from __future__ import annotations

import re
from functools import lru_cache

_TOKEN_RE = re.compile(r"\b\w{2,}\b")


@lru_cache(maxsize=4096)
def tokens(text: str) -> frozenset[str]:
    """Return the set of word tokens (two or more word characters) of ``text``, lower-cased."""
    return frozenset(_TOKEN_RE.findall(text.lower()))


def jaccard(a: str, b: str) -> float:
    """Jaccard similarity of the token sets of ``a`` and ``b`` (unrounded).

    Two empty token sets are identical (1.0); one empty set shares nothing (0.0).
    """
    ta, tb = tokens(a), tokens(b)
    if not ta and not tb:
        return 1.0
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


def word_count(text: str) -> int:
    """Number of whitespace-separated words."""
    return len(text.split())
