"""Formulas are found in Markdown text by their four delimiters, never in code, never in prices, and only once
their closing delimiter has arrived (examples, and properties checked by Hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_copilot.core.transcript.math_spans import MAX_FORMULA_CHARS, MathSpan, find_math_spans


def found(text: str) -> list[tuple[str, str, bool]]:
    """(source as written, LaTeX, display) of each formula."""
    return [(text[span.start : span.end], span.latex, span.display) for span in find_math_spans(text)]


@pytest.mark.parametrize("text, expected", [
    ("Euler: $e^{i\\pi}+1=0$.", [("$e^{i\\pi}+1=0$", "e^{i\\pi}+1=0", False)]),
    ("sum $$\\sum_i x_i$$ here", [("$$\\sum_i x_i$$", "\\sum_i x_i", True)]),
    ("a \\(x^2\\) and \\[y\\]", [("\\(x^2\\)", "x^2", False), ("\\[y\\]", "y", True)]),
    ("$$\n\\frac{a}{b}\n$$", [("$$\n\\frac{a}{b}\n$$", "\n\\frac{a}{b}\n", True)]),
    ("\\[\na \\\\\nb\n\\]", [("\\[\na \\\\\nb\n\\]", "\na \\\\\nb\n", True)]),  # `\\` inside is a line break, not `\]`
    ("$a$ and $b$", [("$a$", "a", False), ("$b$", "b", False)]),
    ("$\\$5$", [("$\\$5$", "\\$5", False)]),  # an escaped dollar inside does not close
    ("x_1 and $x_1 * y_2$", [("$x_1 * y_2$", "x_1 * y_2", False)]),
    # prices and other dollars that are not formulas
    ("It costs $5 and $10.", []),
    ("between $5-$10 a day", []),
    ("$1,000/$2,000", []),
    ("costs $5, and $x$ too", [("$x$", "x", False)]),  # the first `$` closes at "and $": a space before it
    ("$ x$ and $x $", []),  # a space after the opening or before the closing `$`
    ("$x$5", []),  # a digit right after the closing `$`
    ("\\$x$ and \\\\(y\\\\)", []),  # escaped delimiters
    # code is never math
    ("`$x$` and ``$y$ ` $z$`` then $w$", [("$w$", "w", False)]),
    ("```\n$x$\n```\n$y$", [("$y$", "y", False)]),
    ("~~~tex\n$$a$$\n~~~", []),
    ("an unmatched ` backtick $x$", [("$x$", "x", False)]),
    ("just $5 and `$x$` here", []),  # no backtick in a formula: the first `$` does not close inside the code span
    ("$$a ` b$$ and \\(c`\\)", []),
    # unclosed (still streaming), or cut by a blank line or a line end
    ("the sum $$\\sum_i", []),
    ("inline $x^2 + ", []),
    ("\\(x", []),
    ("$$a\n\nb$$", []),
    ("$a\nb$", []),
    ("\\(a\nb\\)", []),
    ("$$$$", []),
    ("$$ $$", []),
    # a display formula in a blockquote loses the markers of its continuation lines
    ("> $$\n> a \\\\\n> b\n> $$", [("$$\n> a \\\\\n> b\n> $$", "\na \\\\\nb\n", True)]),
])
def test_examples(text, expected):
    assert found(text) == expected


def test_a_formula_longer_than_the_limit_stays_text():
    latex = "x+" * (MAX_FORMULA_CHARS // 2) + "y"
    assert find_math_spans(f"$${latex}$$") == [] and find_math_spans("$$x+y$$") != []


WORDS = st.sampled_from(["the", "sum", "is", "cost", "a", "b", "ok", "of", "and", "x", "é", "中文", ".", ","])
LATEX_TOKENS = st.sampled_from(["x", "y", "2", "^", "_", "{", "}", "+", "=", "(", ")", "\\alpha", "\\frac{a}{b}", " ", "|", "*", "\\\\"])
OPENERS = {"$": ("$", False), "$$": ("$$", True), "\\(": ("\\)", False), "\\[": ("\\]", True)}


@st.composite
def latex(draw) -> str:
    return "".join(draw(st.lists(LATEX_TOKENS, min_size=1, max_size=12))).strip() or "x"


@st.composite
def prose_with_formulas(draw) -> tuple[str, list[tuple[str, str, bool]]]:
    """Words and formulas separated by spaces (so no digit ever follows a closing `$`), and the formulas in it."""
    parts, expected = [], []
    for _ in range(draw(st.integers(0, 6))):
        parts.extend(draw(st.lists(WORDS, max_size=4)))
        if draw(st.booleans()):
            opener = draw(st.sampled_from(sorted(OPENERS)))
            closer, display = OPENERS[opener]
            body = draw(latex())
            if opener in ("$", "$$"):
                body = body.replace("\\\\", "\\alpha")  # `\\` right before a closing `$` would escape it
            source = f"{opener}{body}{closer}"
            parts.append(source)
            expected.append((source, body, display))
    return " ".join(parts), expected


@settings(max_examples=300, deadline=None)
@given(prose_with_formulas())
def test_every_formula_written_is_found_exactly(case):
    text, expected = case
    assert found(text) == expected


@settings(max_examples=300, deadline=None)
@given(prose_with_formulas(), st.data())
def test_while_streaming_a_formula_appears_only_when_its_closing_delimiter_has(case, data):
    """Every prefix of the text shows exactly the formulas that are complete in it; an open one stays text."""
    text, _expected = case
    full = find_math_spans(text)
    cut = data.draw(st.integers(0, len(text)))
    assert find_math_spans(text[:cut]) == [span for span in full if span.end <= cut]


AMOUNTS = st.builds(lambda whole, cents: f"${whole}" + (f".{cents:02d}" if cents is not None else ""),
                    st.integers(0, 100_000), st.none() | st.integers(0, 99))
PRICE_TEXT = st.lists(st.one_of(AMOUNTS, WORDS, st.sampled_from(["-", "/", "to", "or", "(", ")", "and"])), max_size=20)


@settings(max_examples=300, deadline=None)
@given(PRICE_TEXT, st.sampled_from([" ", "", ", "]))
def test_prices_are_never_formulas(tokens, separator):
    assert find_math_spans(separator.join(tokens)) == []


@settings(max_examples=200, deadline=None)
@given(latex(), st.integers(1, 3), st.booleans())
def test_formulas_in_code_are_never_found(body, ticks, fenced):
    formula = f"$${body}$$ and ${body}$ and \\({body}\\)"
    if fenced:
        text = f"before\n```tex\n{formula}\n```\nafter $y$"
    else:
        fence = "`" * ticks
        pad = " " if formula.startswith("`") or formula.endswith("`") else ""
        text = f"before {fence}{pad}{formula}{pad}{fence} after $y$"
    assert found(text) == [("$y$", "y", False)]


ANY_TEXT = st.text(alphabet=st.sampled_from(list("$\\()[]`{}ab1 \n>~-*_")), max_size=120)


@settings(max_examples=500, deadline=None)
@given(ANY_TEXT)
def test_spans_are_ordered_disjoint_and_delimited(text):
    spans: list[MathSpan] = find_math_spans(text)
    previous_end = 0
    for span in spans:
        assert previous_end <= span.start < span.end <= len(text)
        source = text[span.start : span.end]
        opener = next(o for o in ("$$", "\\[", "\\(", "$") if source.startswith(o))
        closer, display = OPENERS[opener]
        assert source.endswith(closer) and len(source) >= len(opener) + len(closer) + 1
        assert span.display is display and span.latex.strip()
        assert "\n\n" not in source.replace(" ", "")
        if not display:
            assert "\n" not in source
        previous_end = span.end
