"""Which link targets the transcript may open (http, https, mailto), how to name their host, and when to ask first."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import SplitResult, unquote, urlsplit
from desktop_copilot.core.words import tr

ALLOWED_SCHEMES = ("http", "https", "mailto")
MAX_URL_LENGTH = 4096
"""Longer targets are shown as text, never opened (no site needs them; OS handlers choke on them)."""
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_SCHEME = re.compile(r"^(https?|mailto):", re.IGNORECASE)
_DOMAIN = re.compile(r"^[\w-]+(?:\.[\w-]+)*\.(?:[^\W\d_]{2,}|xn--[a-z0-9-]+)\.?$", re.IGNORECASE)
_HOST = re.compile(r"[\w.-]+|[0-9a-f:.]+")
"""A host name (letters of any script, digits, dots, hyphens) or an IPv6 literal: no %, no other punctuation."""
_ANY_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):", re.IGNORECASE)
_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
_HOST_IN_TEXT = re.compile(r"^(?:(?:https?|ftp)://|mailto:)?(?:[^\s@/?#]*@)?([^\s/?#:@]+)(?::\d+)?(?:[/?#]\S*)?$", re.IGNORECASE)


def _split(url: str) -> SplitResult | None:
    try:
        return urlsplit(url)
    except ValueError:
        return None


def is_allowed(url: str) -> bool:
    """True only for a well-formed http(s) URL with a host or a mailto: with an address: the scheme must
    start the string (no whitespace, no entities), and no control character, space or backslash anywhere."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH or not _SCHEME.match(url):
        return False
    if any(ch.isspace() or ch == "\\" or unicodedata.category(ch) == "Cc" for ch in url):
        return False
    parts = _split(url)
    if parts is None:
        return False
    if parts.scheme.lower() == "mailto":
        return "@" in parts.path and not parts.netloc
    try:
        port_ok = parts.port is None or 0 < parts.port < 65536
    except ValueError:
        return False
    host = parts.hostname or ""
    return url[len(parts.scheme) + 1 :].startswith("//") and bool(_HOST.fullmatch(host)) and port_ok


def ascii_host(host: str) -> str:
    """`host` lowercased, without a trailing dot, international labels in their punycode (xn--) form."""
    host = host.strip().rstrip(".").lower()
    try:
        return host.encode("idna").decode("ascii")
    except (UnicodeError, ValueError):
        return host


def unicode_host(host: str) -> str:
    """`host` with punycode labels decoded (how a look-alike name would appear); `host` if it cannot be."""
    try:
        return host.encode("ascii").decode("idna")
    except (UnicodeError, ValueError):
        return host


def url_host(url: str) -> str:
    """The host a URL opens (ASCII form), the domain of a mailto: address, or ""."""
    parts = _split(url)
    if parts is None:
        return ""
    if parts.scheme.lower() == "mailto":
        address = unquote(parts.path).split(",")[0]
        return ascii_host(address.rpartition("@")[2]) if "@" in address else ""
    return ascii_host(parts.hostname or "")


def display_host(url: str) -> str:
    """A short, truthful name for where `url` points: its host for web and mail links, else what kind of
    target it is (a local file, embedded data, another program's link)."""
    found = _ANY_SCHEME.match(url) if isinstance(url, str) else None
    scheme = found.group(1).lower() if found else ""
    if is_allowed(url):
        return url_host(url)
    if scheme in ("http", "https", "mailto"):
        return tr("unusable address")
    if scheme == "data":
        return tr("embedded data")
    if scheme == "file" or not scheme or len(scheme) == 1:  # "C:" is a Windows drive, not a scheme
        return tr("local file")
    return tr("{scheme}: link").format(scheme=visible_form(scheme))


def image_label(alt: str, src: str) -> str:
    """What an image becomes in the transcript: "🖼 chart (example.com)" or "🖼 chart (local file, not shown)"."""
    alt = "".join(visible_form(ch) if ch in BIDI_CONTROLS else ch for ch in " ".join(alt.split())) or tr("image")
    where = display_host(src)
    return f"🖼 {alt} ({where})" if is_allowed(src) else tr("🖼 {alt} ({where}, not shown)").format(alt=alt, where=where)


def visible_form(text: str) -> str:
    """`text` with invisible and direction-changing characters spelled out (⟨U+202E⟩), so what is shown is what is there."""
    return "".join(f"⟨U+{ord(ch):04X}⟩" if unicodedata.category(ch) in ("Cf", "Cc") else ch for ch in text)


def host_named_by(text: str) -> str:
    """The host a link's visible text claims ("https://bank.com/login", "www.bank.com", "me@bank.com"), or ""."""
    text = text.strip().strip("<>")
    match = _HOST_IN_TEXT.match(text)
    if not match:
        return ""
    host = match.group(1)
    return ascii_host(host) if _DOMAIN.match(host) or _IPV4.match(host) else ""


def _same_site(named: str, actual: str) -> bool:
    named, actual = named.removeprefix("www."), actual.removeprefix("www.")
    return named == actual or actual.endswith("." + named) or named.endswith("." + actual)


def _has_bidi(text: str) -> bool:
    return any(ch in BIDI_CONTROLS for ch in text) or any(ch in BIDI_CONTROLS for ch in unquote(text))


def _scripts(text: str) -> set[str]:
    return {unicodedata.name(ch, "?").split()[0] for ch in text if ch.isalpha()}


def needs_confirmation(visible_text: str, url: str) -> str | None:
    """Why the user should see the real target before `url` opens, or None. Reasons: direction-changing
    characters, a look-alike (non-ASCII or punycode) host, a user name before the host, or visible text
    naming another host than the target's."""
    host = url_host(url)
    if _has_bidi(url) or _has_bidi(visible_text):
        return tr("The link contains invisible characters that change the direction of the text, so what it shows may "
                  "not be where it goes.")
    labels = host.split(".")
    if any(label.startswith("xn--") for label in labels) or not host.isascii():
        pretty = unicode_host(host)
        words = tr("The address uses international characters and mixes alphabets: “{shown}” is really {host}, which may imitate "
                   "another site.") if any(len(_scripts(label)) > 1 for label in pretty.split(".")) else tr(
            "The address uses international characters: “{shown}” is really {host}, which may imitate another site.")
        return words.format(shown=visible_form(pretty), host=host)
    parts = _split(url)
    if parts is not None and parts.scheme.lower() != "mailto" and "@" in parts.netloc:
        return (tr("The address has a user name before the host: it opens {host}, not {user}.")
                .format(host=host, user=visible_form(parts.netloc.rpartition('@')[0])))
    named = host_named_by(visible_text)
    if named and host and not _same_site(named, host):
        return tr("The link text shows {named}, but the link opens {host}.").format(named=visible_form(named), host=host)
    return None
