"""The pieces a columnar read of the bias store is made of, shared by the decoder
(:mod:`harness.bias.columns`) and the columnar index (:mod:`harness.bias.column_index`): the id coders
kept across chunks, one decoded chunk, and the column names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class Coder:
    """Integer codes of ids in order of first appearance, kept across chunks."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, values: list[str]) -> np.ndarray:
        index = self.index
        for v in dict.fromkeys(values):
            if v not in index:
                index[v] = len(index)
        if len(index) == 1:
            return np.zeros(len(values), dtype=np.int64)
        return np.fromiter(map(index.__getitem__, values), np.int64, len(values))

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(self.index)


@dataclass(slots=True)
class Chunk:
    """The kept records of one chunk of lines as columns, and what was skipped."""

    columns: dict[str, np.ndarray]
    bad: list[tuple[int, str]]
    foreign: int
    no_display: int


#: the columns of a decoded chunk, in the order the index file stores them
COLUMNS = ("session", "reviewer", "model", "config", "position", "length", "score", "time")
