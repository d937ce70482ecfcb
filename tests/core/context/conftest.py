"""Fixtures of the context tests: the budget's kept weights and the providers' calibration forgotten around a test."""

from __future__ import annotations

import pytest

from desktop_copilot.core.context import budget
from desktop_copilot.core.context.tokens import forget_calibration


@pytest.fixture
def fresh_budget():
    forget_calibration()
    budget.forget()
    yield
    forget_calibration()
    budget.forget()
