"""`ask --temperature T --top-p P`: the options read in words (argparse's exit 2 for a value out of range) and given
to the conversation of the run, which keeps them when it is stored."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from desktop_copilot.core.conversation.generation import (
    GENERATION_FIELDS,
    GenerationOptionError,
    checked_temperature,
    checked_top_p,
)
from desktop_copilot.core.conversation.models import Conversation

MODEL_DEFAULT = "default"
"""What `--temperature` / `--top-p` take to clear a conversation's own value (the model's default again)."""


def add_generation_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--temperature", type=_temperature, metavar="T",
                        help="sampling temperature from 0 to 2, kept with the conversation (default: the conversation's, "
                             f"else the model's; '{MODEL_DEFAULT}' goes back to the model's)")
    parser.add_argument("--top-p", type=_top_p, metavar="P",
                        help="nucleus sampling, more than 0 and at most 1, kept with the conversation (default: as "
                             "for --temperature)")


def apply_generation_options(conversation: Conversation, args: argparse.Namespace) -> None:
    """Gives the conversation of this run the temperature and top-p asked for (with -c, the stored one keeps them)."""
    for name in GENERATION_FIELDS:
        value = getattr(args, name, None)
        if value is not None:
            setattr(conversation, name, None if value == MODEL_DEFAULT else value)


def _option(text: str, check: Callable[[float | None], float | None], example: str) -> float | str:
    if text.strip().lower() == MODEL_DEFAULT:
        return MODEL_DEFAULT
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give one such as {example}, or "
                                         f"'{MODEL_DEFAULT}' for the model's default") from None
    try:
        return check(value)
    except GenerationOptionError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _temperature(text: str) -> float | str:
    return _option(text, checked_temperature, "0.7")


def _top_p(text: str) -> float | str:
    return _option(text, checked_top_p, "0.9")
