"""What can be an API key: the checks a typed or pasted value must pass before it is stored."""

from __future__ import annotations

import re

from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.words import tr

HTTP_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
"""What an HTTP header name may be (RFC 9110 token characters)."""

MAX_KEY_BYTES = 2560
"""Windows Credential Manager holds at most 2,560 bytes per secret; no key may be longer anywhere."""


class KeyValueError(ValueError):
    """The text cannot be a key (empty, too long, spaces inside); the message never contains it."""


def clean_key_value(value: str | Secret, *, max_bytes: int = MAX_KEY_BYTES, encoding: str = "utf-8") -> Secret:
    """The key without surrounding whitespace; KeyValueError when empty, too long or broken by spaces."""
    text = (value.reveal() if isinstance(value, Secret) else value).strip()
    if not text:
        raise KeyValueError(tr("The key is empty."))
    if any(ch.isspace() or not ch.isprintable() for ch in text):
        raise KeyValueError(tr("The key contains spaces, line breaks or control characters; paste only the key."))
    size = len(text.encode(encoding))
    if size > max_bytes:
        raise KeyValueError(tr("The key is {size} bytes long; a keyring entry holds at most {most} bytes.").format(
            size=f"{size:,}", most=f"{max_bytes:,}"))
    return Secret(text)
