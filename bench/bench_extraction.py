"""Benchmark: objective-answer extraction on the labelled corpus, and its cost on hostile answers.

The corpus (``tests/fixtures/extraction_corpus.jsonl`` from ``make_extraction_corpus.py``, the
hand-written ``extraction_corpus_hand.yaml`` and the held-out ``extraction_corpus_holdout.yaml``)
holds (expected block, answer, truly correct?) triples. Each answer goes through
:func:`harness.metrics.correctness.check_expected` with its question, exactly as a run scores it. Per expected type:

* precision = answers scored correct that are truly correct / answers scored correct;
* recall = truly correct answers scored correct / truly correct answers;
* ambiguous = answers the checker called ``ambiguous`` (never scored correct).

Hostile inputs: a 128 KB and a 1 MB answer of ``"but "`` repeated (and of "answer: " repeated, and
of unclosed fences) are scored for every type; the figure is the time per case and the ratio is
1 MB time / 128 KB time (near 1 because answers are capped; a linear extractor without the cap
would show 8, a quadratic one 64).

Run: ``python bench/run.py --only extraction``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter

from bench import BenchResult, BenchRow, ratio, timed
from harness.data.expected import Expected
from harness.metrics.correctness import check_expected

DATA = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
CORPUS = DATA / "extraction_corpus.jsonl"
HAND = DATA / "extraction_corpus_hand.yaml"
HOLDOUT = DATA / "extraction_corpus_holdout.yaml"
_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)


def load_corpus() -> list[dict[str, Any]]:
    """Every labelled triple: the generated JSONL rows, then the hand-written and held-out YAML ones."""
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    for path in (HAND, HOLDOUT):
        rows += [{"style": "held_out" if path is HOLDOUT else "hand", **r}
                 for r in yaml.safe_load(path.read_text(encoding="utf-8"))]
    return rows


def score_row(row: dict[str, Any]) -> dict[str, Any]:
    """Check one triple; returns the row with ``scored`` (bool) and ``verdict``, ``method``, ``detail``."""
    expected = _EXPECTED.validate_python(row["expected"])
    result = check_expected(expected, row["answer"], row.get("query"))
    return {**row, "scored": result.correct, "verdict": result.verdict, "method": result.extraction.method,
            "detail": result.detail}


def summarize(scored: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Precision, recall, counts and ambiguous count per expected type (and ``all``) of scored rows."""
    out: dict[str, dict[str, float]] = {}
    for kind in sorted({r["expected"]["type"] for r in scored}) + ["all"]:
        group = [r for r in scored if kind == "all" or r["expected"]["type"] == kind]
        tp = sum(r["scored"] and r["correct"] for r in group)
        fp = sum(r["scored"] and not r["correct"] for r in group)
        fn = sum(not r["scored"] and r["correct"] for r in group)
        out[kind] = {
            "n": len(group), "truly_correct": sum(r["correct"] for r in group), "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else 1.0, "recall": tp / (tp + fn) if tp + fn else 1.0,
            "ambiguous": sum(r["verdict"] == "ambiguous" for r in group),
        }
    return out


HOSTILE = {
    "but": "but ",
    "cue": "the answer is: ",
    "fence": "```python\n",
}
HOSTILE_EXPECTED: list[dict[str, Any]] = [
    {"type": "numeric", "value": 3},
    {"type": "exact", "value": "Paris"},
    {"type": "choice", "answer": "B", "options": {"A": "x", "B": "y"}},
    {"type": "boolean", "value": True},
    {"type": "python", "function": "f", "tests": "assert f() == 1\n"},
]


def _hostile_seconds(size: int) -> tuple[float, bool]:
    total, capped = 0.0, True
    for unit in HOSTILE.values():
        text = (unit * (size // len(unit) + 1))[:size]
        for block in HOSTILE_EXPECTED:
            result, t = timed(lambda b=block, s=text: check_expected(_EXPECTED.validate_python(b), s))
            total += t.wall_s
            capped &= result.extraction.capped
    return total / (len(HOSTILE) * len(HOSTILE_EXPECTED)), capped


def run(quick: bool = False) -> BenchResult:
    """Precision and recall per expected type on the corpus; hostile-input cost at 128 KB and 1 MB
    (``quick``: the corpus without its python rows, and the 128 KB answers only)."""
    rows = [r for r in load_corpus() if not quick or r["expected"]["type"] != "python"]  # quick: no sandbox
    scored, t = timed(lambda: [score_row(r) for r in rows])
    stats = summarize(scored)
    missed = sorted(r["id"] for r in scored if r["scored"] != r["correct"])
    figures: dict[str, float] = {"corpus_n": float(len(rows)),
                                 "corpus_wrong": float(sum(not r["correct"] for r in rows)), "corpus_s": t.wall_s}
    table: list[BenchRow] = []
    kinds = Counter(r["expected"]["type"] for r in rows)
    for kind, s in stats.items():
        figures[f"{kind}.precision"] = s["precision"]
        figures[f"{kind}.recall"] = s["recall"]
        figures[f"{kind}.ambiguous"] = s["ambiguous"]
        table.append(BenchRow(
            name=f"extraction.{kind}", figure=f"P {s['precision']:.3f} R {s['recall']:.3f}",
            ratio=f"{s['tp']}/{s['truly_correct']} found",
            note=(f"n={s['n']} ({kinds.get(kind, s['n'])} cases), fp={s['fp']}, fn={s['fn']}, "
                  f"ambiguous={s['ambiguous']}"),
        ))
    small, capped_small = _hostile_seconds(128 * 1024)
    big, capped_big = (small, capped_small) if quick else _hostile_seconds(1024 * 1024)
    figures["hostile_128k_ms"] = small * 1000
    figures["hostile_1m_ms"] = big * 1000
    table.append(BenchRow(name="extraction.hostile", figure=f"{small * 1000:.1f} ms / {big * 1000:.1f} ms",
                          ratio=f"{ratio(big, small):.2f}x",
                          note="per case at 128 KB / 1 MB (1 MB = 128 KB in --quick)"))
    notes = [f"{len(rows)} labelled triples, {int(figures['corpus_wrong'])} truly wrong; misses: "
             + (", ".join(missed) or "none"),
             f"hostile answers capped: {capped_small and capped_big}"]
    return BenchResult(name="extraction", figures=figures, rows=tuple(table), notes=tuple(notes))


if __name__ == "__main__":
    result = run()
    for row in result.rows:
        print(f"{row.name:24} {row.figure:24} {row.ratio:14} {row.note}")
    for note in result.notes:
        print(note)
