"""Benchmark: how many bytes of saved prompt openings the main job's engines need (issue 30).

Runs ``council-harness run --suite reasoning-100 --limit N --cache-mode off`` in this process with no
bound on the saved openings (:class:`harness.providers.prompt_cache.PromptCache`), then, per engine,
from every restored opening's LRU depth (the bytes of the openings used since it was last used, itself
included: with a bound of at least that many bytes it would still have been there) and the prompt
tokens it saved, prints the share of the saved tokens a bound of B MB keeps, for several B, and the
bytes the openings reached unbounded. The bound :data:`harness.providers.prompt_cache.PREFIX_CACHE_BYTES`
is chosen from this curve.

Run: ``python bench/bench_prompt_cache.py [--limit 10]``. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import BenchResult, BenchRow, load_note, print_result  # noqa: E402

BOUNDS_MB = (16, 32, 48, 64, 96, 128, 192, 256, 512)


def run(limit: int = 10) -> BenchResult:
    import os

    from harness.cli import main as cli
    from harness.providers import local, prompt_cache

    seen: dict[str, list[tuple[int, int]]] = {}
    peak: dict[str, int] = {}
    unbounded = 1 << 50
    prompt_cache.OpeningBudget.__init__.__defaults__ = (unbounded,)
    save = prompt_cache.PromptCache._save

    def save_and_measure(self, llm, tokens):  # noqa: ANN001, ANN202
        save(self, llm, tokens)
        peak[str(id(self))] = max(peak.get(str(id(self)), 0), sum(len(s) for s in self.openings.values()))

    prompt_cache.PromptCache._save = save_and_measure  # type: ignore[method-assign]
    close = local.LocalProvider._close_all

    def close_and_collect(self):  # noqa: ANN001, ANN202
        for key, cache in self._prompt_caches.items():
            seen.setdefault(key, []).extend(cache.restores)
            peak[key] = max(peak.get(key, 0), peak.pop(str(id(cache)), 0))
        close(self)

    local.LocalProvider._close_all = close_and_collect  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory(prefix="bench-prompt-cache-") as tmp:
        os.environ["LLM_COUNCIL_REPORTS_DIR"] = str(Path(tmp) / "reports")
        cli(["run", "--suite", "reasoning-100", "--limit", str(limit), "--cache-mode", "off"])
    figures: dict[str, float] = {}
    rows = []
    for key, restores in sorted(seen.items()):
        total = sum(t for _, t in restores) or 1
        shares = []
        for mb in BOUNDS_MB:
            kept = sum(t for d, t in restores if d <= mb * 2**20)
            figures[f"{key}.kept_share.{mb}mb"] = kept / total
            shares.append(f"{mb}:{kept / total:.0%}")
        figures[f"{key}.peak_mb"] = peak.get(key, 0) / 2**20
        rows.append(
            BenchRow(
                name=key,
                figure=f"{len(restores)} restores, {total} tokens saved",
                ratio=" ".join(shares),
                note=f"unbounded openings reached {peak.get(key, 0) / 2**20:.0f} MB",
            )
        )
    return BenchResult(
        name="prompt_cache",
        figures=figures,
        rows=tuple(rows),
        notes=(load_note(), f"--limit {limit}; ratio: bound MB: share of saved tokens kept"),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=10)
    print_result(run(parser.parse_args().limit))


if __name__ == "__main__":
    main()
