"""Vertical geometry of the rows: heights, running tops recomputed from the first change, row at a y."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate


class RowGeometry:
    """Heights per row and their running tops, recomputed only from the first row that changed, so a
    change to one row never costs a pass over every row's size."""

    def __init__(self) -> None:
        self.heights: list[int] = []
        self.measured = bytearray()
        """1 where the height was measured (documents laid out) at the current width, 0 where estimated."""
        self._tops: list[int] = [0]
        self._valid = 0
        """_tops[0.._valid] are up to date."""

    def __len__(self) -> int:
        return len(self.heights)

    def reset(self, heights: list[int]) -> None:
        self.heights = list(heights)
        self.measured = bytearray(len(heights))
        self._tops, self._valid = [0], 0

    def insert(self, row: int, heights: list[int]) -> None:
        """Rows inserted before `row`, with estimated heights."""
        self.heights[row:row] = heights
        self.measured[row:row] = bytes(len(heights))
        self._valid = min(self._valid, row)

    def remove(self, row: int, count: int) -> None:
        del self.heights[row : row + count]
        del self.measured[row : row + count]
        self._valid = min(self._valid, row)

    def estimate_again(self, row: int, heights: list[int]) -> None:
        """Rows from `row` on have these estimated heights now (rows hidden or shown): one pass, however many."""
        self.heights[row : row + len(heights)] = heights
        self.measured[row : row + len(heights)] = bytes(len(heights))
        self._valid = min(self._valid, row)

    def set(self, row: int, height: int, measured: bool) -> int:
        """Set a row's height; returns by how much it changed."""
        delta = height - self.heights[row]
        self.heights[row] = height
        self.measured[row] = measured
        if delta:
            self._valid = min(self._valid, row)
        return delta

    def forget_measurements(self) -> None:
        """The width changed: every height is an estimate again until measured at the new width."""
        self.measured = bytearray(len(self.heights))

    def top(self, row: int) -> int:
        """The y of `row`'s top edge (`len(self)` gives the total height)."""
        if row > self._valid:
            self._tops[self._valid :] = accumulate(self.heights[self._valid :], initial=self._tops[self._valid])
            self._valid = len(self.heights)
        return self._tops[row]

    def total(self) -> int:
        return self.top(len(self.heights))

    def row_at(self, y: int) -> int:
        """The row containing y (the first or last row for a y above or below them all); -1 when empty."""
        if not self.heights:
            return -1
        self.top(len(self.heights))
        return min(len(self.heights) - 1, max(0, bisect_right(self._tops, y) - 1))
