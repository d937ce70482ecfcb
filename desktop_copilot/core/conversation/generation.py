"""Generation options of a conversation or an assistant: temperature and top-p, the ranges providers accept, and
the words for a value outside them. None, everywhere, means the model's default (nothing is sent)."""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import AfterValidator

from desktop_copilot.core.words import tr

MAX_TEMPERATURE = 2.0
MAX_TOP_P = 1.0
"""Top-p is more than 0 and at most this."""


class GenerationOptionError(ValueError):
    """A temperature or top-p outside its range; the message gives the range and what to do."""


def checked_temperature(value: float | None) -> float | None:
    """`value` when it is a temperature every provider accepts (0 to 2); GenerationOptionError otherwise."""
    if value is None or (math.isfinite(value) and 0 <= value <= MAX_TEMPERATURE):
        return value
    raise GenerationOptionError(
        tr("The temperature must be from 0 to {most}, not {value}. Choose a value in that range (lower gives steadier "
           "answers, higher more varied ones), or leave it out to use the model's default.").format(
            most=f"{MAX_TEMPERATURE:g}", value=f"{value:g}"))


def checked_top_p(value: float | None) -> float | None:
    """`value` when it is a top-p every provider accepts (more than 0, at most 1); GenerationOptionError otherwise."""
    if value is None or (math.isfinite(value) and 0 < value <= MAX_TOP_P):
        return value
    raise GenerationOptionError(
        tr("Top-p must be more than 0 and at most {most}, not {value}. Choose a value in that range (such as 0.9), or "
           "leave it out to use the model's default.").format(most=f"{MAX_TOP_P:g}", value=f"{value:g}"))


Temperature = Annotated[float | None, AfterValidator(checked_temperature)]
"""A pydantic field type: a temperature in range, or None."""
TopP = Annotated[float | None, AfterValidator(checked_top_p)]
"""A pydantic field type: a top-p in range, or None."""
GENERATION_FIELDS = ("temperature", "top_p")
"""The names of the two fields, on Conversation and Assistant alike."""
