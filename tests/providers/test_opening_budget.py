"""The saved prompt openings of a provider's engines share one byte budget (issue 30: the main job's
peak RSS), least recently used dropped first whichever engine holds it.

The openings here are plain byte strings standing for KV states (the budget only counts their length);
the KV states themselves are restored bit for bit in ``tests/providers/test_probe_embedded.py``.
"""

from __future__ import annotations

from harness.providers.prompt_cache import PREFIX_CACHE_BYTES, OpeningBudget, PromptCache


def _save(cache: PromptCache, tokens: tuple[int, ...], size: int) -> None:
    cache.openings[tokens] = b"x" * size
    cache.openings.move_to_end(tokens)
    cache.budget.touch(cache, tokens)


def test_the_least_recently_used_opening_of_any_engine_is_dropped_first() -> None:
    budget = OpeningBudget(max_bytes=100)
    f16, gemma = PromptCache(budget), PromptCache(budget)
    for i in (1, 2, 3):
        _save(f16, (i,), 30)
    assert budget.used == 90
    _save(gemma, (9,), 30)  # 120 > 100: the oldest, f16's (1,), goes
    assert list(f16.openings) == [(2,), (3,)] and list(gemma.openings) == [(9,)] and budget.used == 90
    budget.touch(f16, (2,))  # restored: now the most recently used
    _save(gemma, (8,), 30)  # the oldest is now f16's (3,)
    assert list(f16.openings) == [(2,)] and list(gemma.openings) == [(9,), (8,)] and budget.used == 90
    budget.forget(gemma)
    assert not gemma.openings and budget.used == 30


def test_the_newest_opening_is_kept_even_alone_over_the_budget() -> None:
    budget = OpeningBudget(max_bytes=10)
    cache = PromptCache(budget)
    _save(cache, (1,), 4)
    _save(cache, (2,), 50)
    assert list(cache.openings) == [(2,)] and budget.used == 50


def test_a_cache_without_a_budget_gets_its_own_of_the_default_size() -> None:
    one, two = PromptCache(), PromptCache()
    assert one.budget is not two.budget and one.budget.max_bytes == PREFIX_CACHE_BYTES == 192 * 2**20
