"""The link policy: only http, https and mailto open; hosts are named truthfully; misleading links ask first."""

from __future__ import annotations

import subprocess
import sys

import pytest

from desktop_copilot.core.content.link_safety import (
    MAX_URL_LENGTH,
    display_host,
    host_named_by,
    image_label,
    is_allowed,
    needs_confirmation,
    url_host,
    visible_form,
)

ALLOWED = [
    "https://example.com",
    "http://example.com/path?q=1#frag",
    "HTTPS://EXAMPLE.COM/Upper",
    "https://example.com:8443/x",
    "https://[::1]:8080/x",
    "https://xn--bnk-6cd.com/login",  # allowed (it asks first, see below)
    "mailto:help@example.com",
    "mailto:help@example.com?subject=Hi",
]

REFUSED = [
    "",
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "jav&#x61;script:alert(1)",
    "&#106;avascript:alert(1)",
    "%6Aavascript:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD4=",
    "data:image/png;base64,iVBORw0KGgo=",
    "file:///etc/passwd",
    "FILE:///C:/Windows/win.ini",
    "smb://attacker.example/share",
    "search-ms:query=invoice&crumb=location:\\\\attacker.example\\share",
    "ms-msdt:/id PCWDiagnostic",
    "myapp://install?plugin=evil",
    "ftp://files.example/x",
    "tel:+15555550100",
    "/etc/passwd",
    "../../secrets.txt",
    "//evil.example/x",
    "\\\\attacker.example\\share",
    "C:\\Windows\\win.ini",
    " https://example.com",
    "https://example.com ",
    "ht\ttps://example.com",
    "https\n://example.com",
    "https ://example.com",
    "https://exa mple.com",
    "https://example.com/\x00",
    "https://example.com/\x7f",
    "https:",
    "https://",
    "https:///path",
    "https:evil.example",
    "https:\\\\evil.example",
    "https://bank.com\\@evil.example/",
    "https://exa%00mple.com",
    "https://example.com:99999/",
    "https://example.com:0/",
    "https://[zz/",
    "mailto:",
    "mailto:nobody",
    "https://example.com/?" + "a" * MAX_URL_LENGTH,
]


@pytest.mark.parametrize("url", ALLOWED)
def test_web_and_mail_links_are_allowed(url):
    assert is_allowed(url)


@pytest.mark.parametrize("url", REFUSED)
def test_every_other_target_is_refused(url):
    assert not is_allowed(url)


def test_non_strings_are_refused():
    assert not is_allowed(None)  # type: ignore[arg-type]
    assert not is_allowed(b"https://example.com")  # type: ignore[arg-type]


@pytest.mark.parametrize(("url", "shown"), [
    ("https://Example.COM/x", "example.com"),
    ("https://bаnk.com/", "xn--bnk-6cd.com"),  # a Cyrillic "а": named by its punycode, never as "bank"
    ("mailto:someone@Mail.Example", "mail.example"),
    ("/some/local/path", "local file"),
    ("images/chart.png", "local file"),
    ("file:///etc/passwd", "local file"),
    ("C:\\Windows\\win.ini", "local file"),
    ("data:image/png;base64,AAAA", "embedded data"),
    ("smb://attacker.example/share", "smb: link"),
    ("search-ms:query=x", "search-ms: link"),
    ("https://exa%00mple.com", "unusable address"),
])
def test_display_host_names_where_a_target_points(url, shown):
    assert display_host(url) == shown


def test_image_labels_name_alt_text_and_host():
    assert image_label("chart", "https://example.com/c.png") == "🖼 chart (example.com)"
    assert image_label("chart", "/some/local/path") == "🖼 chart (local file, not shown)"
    assert image_label("  ", "data:image/gif;base64,R0lG") == "🖼 image (embedded data, not shown)"
    assert image_label("a\u202eb", "https://e.example/x.png") == "🖼 a⟨U+202E⟩b (e.example)"


@pytest.mark.parametrize(("text", "host"), [
    ("https://bank.com/login", "bank.com"),
    ("www.Bank.com", "www.bank.com"),
    ("bank.com", "bank.com"),
    ("<https://bank.com>", "bank.com"),
    ("me@bank.com", "bank.com"),
    ("mailto:me@bank.com", "bank.com"),
    ("https://bаnk.com", "xn--bnk-6cd.com"),
    ("10.0.0.1", "10.0.0.1"),
    ("the docs", ""),
    ("click here", ""),
    ("v1.2.3", ""),
    ("", ""),
])
def test_host_named_by_visible_text(text, host):
    assert host_named_by(text) == host


@pytest.mark.parametrize(("text", "url", "expected"), [
    ("https://bank.com", "https://evil.example/login", "shows bank.com, but the link opens evil.example"),
    ("bank.com", "https://bank.com.evil.example/", "opens bank.com.evil.example"),
    ("me@bank.com", "mailto:me@evil.example", "opens evil.example"),
    ("https://bаnk.com/login", "https://xn--bnk-6cd.com/login", "really xn--bnk-6cd.com"),
    ("anything", "https://xn--80ak6aa92e.com/", "international characters"),
    ("invoice", "https://example.com/\u202efdp.exe", "change the direction"),
    ("invoice", "https://example.com/%E2%80%AEfdp.exe", "change the direction"),
    ("in\u2067voice", "https://example.com/", "change the direction"),
    ("https://bank.com", "https://bank.com@evil.example/", "user name before the host: it opens evil.example"),
])
def test_misleading_links_ask_first(text, url, expected):
    reason = needs_confirmation(text, url)
    assert reason is not None and expected in reason


def test_mixed_scripts_are_named_in_the_reason():
    assert "mixes alphabets" in needs_confirmation("x", "https://xn--bnk-6cd.com/")
    assert "mixes alphabets" not in needs_confirmation("x", "https://xn--80ak6aa92e.com/")  # all Cyrillic


@pytest.mark.parametrize(("text", "url"), [
    ("the docs", "https://evil.example/"),  # the text names no host: the tooltip shows the target
    ("https://example.com/docs", "https://example.com/other"),
    ("example.com", "https://www.example.com/"),
    ("docs.example.com", "https://example.com/"),
    ("example.com", "https://docs.example.com/"),
    ("help@example.com", "mailto:help@example.com"),
    ("", "https://example.com"),
])
def test_honest_links_open_without_asking(text, url):
    assert needs_confirmation(text, url) is None


def test_url_host_and_visible_form():
    assert url_host("https://User@Example.com:80/x") == "example.com"
    assert url_host("mailto:a@B.example,c@d.example") == "b.example"
    assert url_host("mailto:nobody") == ""
    assert visible_form("a\u202eb\u200bc") == "a⟨U+202E⟩b⟨U+200B⟩c"


def test_core_modules_do_not_import_qt():
    code = ("import sys, desktop_copilot.core.content.link_safety, desktop_copilot.core.content.citations, desktop_copilot.core.storage.export;"
            "print(any(name.startswith('PySide6') for name in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "False"
