"""Why a file is left out of a knowledge source or failed, in the interface language. The reasons are stored in
English (the index outlives a change of language), written from the templates here, and said with `reason_text` where
they are shown."""

from __future__ import annotations

import re

from desktop_copilot.core.words import N_, tr

TOO_LARGE = N_("larger than the {cap} MB size cap ({size} MB)")
UNREADABLE = N_("could not be read: {why}")
PARSER_FAILED = N_("could not be read ({error})")
DAMAGED_PDF = N_("damaged PDF: {why}")
DAMAGED_DOCX = N_("damaged DOCX: {why}")
BINARY = N_("binary file")

_TEMPLATES = (TOO_LARGE, UNREADABLE, PARSER_FAILED, DAMAGED_PDF, DAMAGED_DOCX)
_PATTERNS = tuple((re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.*)", re.escape(template)), re.DOTALL), template)
                  for template in _TEMPLATES)


def reason_text(reason: str) -> str:
    """A stored reason (English) in the interface language; one the app did not write stays as it is."""
    for pattern, template in _PATTERNS:
        found = pattern.fullmatch(reason)
        if found:
            return tr(template).format(**{name: reason_text(value) if name == "why" else value for name, value in found.groupdict().items()})
    return tr(reason)
