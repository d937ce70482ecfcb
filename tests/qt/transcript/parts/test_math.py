"""Formulas in the transcript: rendered to images with ink in the theme's text colour, inline on the text's baseline
or display centred on a line of their own, the source shown where a formula does not parse, raw while streaming
until the closing delimiter arrives; only our own `math:` images are ever drawn, and a model cannot reach them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QColor, QImage, QPainter, QTextCharFormat, QTextDocument

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Message
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.parts import math as math_images
from desktop_copilot.qt.transcript.parts.tail_renderer import RenderNow
from desktop_copilot.qt.transcript.parts.documents import InertDocument, LiveMarkdown, markdown_document
from desktop_copilot.qt.transcript.parts.markdown import render_markdown
from desktop_copilot.qt.transcript.parts.math import FormulaImage, render_formula
from tests.qt.transcript.parts import document_probe
from tests.qt.transcript.parts.document_probe import anchors, flat, fragments, image_names
from tests.qt.transcript.transcript_support import show_view

load_calls = document_probe.load_calls  # the fixture
BLUE = "#1d4ed8"
FORMULAS = [
    r"\frac{a}{b}",
    r"\sum_{i=1}^{n} i = \frac{n(n+1)}{2}",
    r"\int_0^\infty e^{-x^2}\,dx = \frac{\sqrt{\pi}}{2}",
    r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}",
    r"\begin{aligned} a &= b + c \\ d &= e \end{aligned}",
    r"f(x) = \begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}",
    r"\alpha + \beta = \Gamma \cdot \Omega",
    r"x_i^2 + y_{j,k}^{n+1}",
    r"\lim_{x \to 0} \frac{\sin x}{x} = 1",
    r"E = mc^2 \tag{1}",
]


def ink(image: QImage) -> list[QColor]:
    """The colours of the pixels that are mostly opaque."""
    return [color for y in range(image.height()) for x in range(image.width()) if (color := image.pixelColor(x, y)).alpha() > 200]


def paint(document: QTextDocument, background: str = "#ffffff") -> QImage:
    image = QImage(int(document.textWidth()), int(document.size().height()) + 1, QImage.Format.Format_RGB32)
    image.fill(QColor(background))
    painter = QPainter(image)
    document.drawContents(painter)
    painter.end()
    return image


def near(color: QColor, hex_color: str, tolerance: int = 40) -> bool:
    wanted = QColor(hex_color)
    return all(abs(a - b) <= tolerance for a, b in ((color.red(), wanted.red()), (color.green(), wanted.green()), (color.blue(), wanted.blue())))


def math_fragments(document: QTextDocument) -> list[QTextCharFormat]:
    return [f.charFormat() for f in fragments(document) if f.charFormat().isImageFormat()]


@pytest.mark.parametrize("latex", FORMULAS)
def test_common_latex_renders_with_ink_in_the_colour_asked(qapp, latex):
    formula = render_formula(latex, True, 16, BLUE, 1.0)
    assert isinstance(formula, FormulaImage) and not formula.image.isNull()
    inked = ink(formula.image)
    assert len(inked) > 20
    assert sum(near(color, BLUE) for color in inked) > 0.9 * len(inked)
    assert 0 < formula.baseline <= formula.image.height()


def test_display_style_is_larger_than_inline_and_the_pixel_ratio_is_honoured(qapp):
    latex = r"\sum_{i=1}^{n} x_i"
    inline, display = render_formula(latex, False, 16, BLUE, 1.0), render_formula(latex, True, 16, BLUE, 1.0)
    assert display.image.height() > inline.image.height()  # limits above and below, a bigger sigma
    sharp = render_formula(latex, True, 16, BLUE, 2.0)
    assert sharp.image.devicePixelRatio() == 2.0
    assert abs(sharp.image.width() - 2 * display.image.width()) <= 2
    assert abs(sharp.image.deviceIndependentSize().width() - display.image.width()) <= 1
    assert abs(render_formula(latex, True, 32, BLUE, 1.0).image.height() - 2 * display.image.height()) <= 4


def test_results_are_cached_by_source_style_size_and_colour(qapp):
    first = render_formula(r"\sqrt{2}", False, 15, BLUE, 1.0)
    assert render_formula(r"\sqrt{2}", False, 15, BLUE, 1.0) is first
    assert render_formula(r"\sqrt{2}", False, 15, "#b91c1c", 1.0) is not first
    assert render_formula(r"\sqrt{2}", True, 15, BLUE, 1.0) is not first
    assert render_formula(r"\sqrt{2}", False, 18, BLUE, 1.0) is not first


@pytest.mark.parametrize("latex", [
    r"\frac{1}{",  # unbalanced
    r"x^",  # a missing superscript
    r"\left( x",  # \left without \right
    r"\begin{matrix} a",  # no \end
    r"\notacommand{x}",  # unknown command: latex2mathml would draw its name
    r"\,",  # parses, draws nothing
    "{" * 14 + "x" + "}" * 14,  # nesting that would take ziamath minutes (its cost doubles per level)
    r"\frac{1}{" * 40 + "x" + "}" * 40,
    "x" + "'" * 1800,
])
def test_what_does_not_parse_or_would_cost_too_much_gives_none(qapp, latex):
    assert render_formula(latex, True, 16, BLUE, 1.0) is None


def test_a_reply_shows_inline_and_display_formulas_as_images_and_a_broken_one_as_its_source(qapp, load_calls):
    text = ("Euler: $e^{i\\pi}+1=0$, and \\(x_1 * y_2 * z\\) flow with the text; prices $5 and $10 do not.\n\n"
            "$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$\n\n"
            "Before \\[\\int_0^1 x\\,dx\\] after, and a broken $\\frac{1}{$ and `$code$`.")
    theme = Theme(text=BLUE)
    document = markdown_document(text, 600, theme)
    formats = math_fragments(document)
    assert len(formats) == 4 and load_calls == []
    inline = [f for f in formats if f.verticalAlignment() == QTextCharFormat.VerticalAlignment.AlignMiddle]
    assert [f.toolTip() for f in inline] == ["$e^{i\\pi}+1=0$", "\\(x_1 * y_2 * z\\)"]  # the source, for copying and hover
    shown = document.toPlainText()
    assert "$5 and $10" in shown and "$\\frac{1}{$" in shown and "$code$" in shown
    assert "e^{i" not in shown and "x_1" not in shown and "\\sum" not in shown and "\\int" not in shown
    assert not any(f.charFormat().fontItalic() for f in fragments(document))  # `*` and `_` in formulas are not emphasis
    for fmt in formats:  # each one of ours, registered in the document, drawn in the theme's text colour
        image = document.resource(QTextDocument.ResourceType.ImageResource, QUrl(fmt.toImageFormat().name()))
        assert isinstance(image, QImage) and sum(near(c, BLUE) for c in ink(image)) > 20
    painted = paint(document)
    assert sum(near(painted.pixelColor(x, y), BLUE) for x in range(painted.width()) for y in range(0, painted.height(), 2)) > 200


def test_a_display_formula_gets_a_centred_line_and_an_inline_one_sits_on_the_baseline(qapp):
    document = markdown_document("Then\n$$\\frac{a}{b}$$\nnow aaaa $x$ aaaa.", 500, DEFAULT_THEME)
    blocks = []
    block = document.begin()
    while block.isValid():
        blocks.append((block.text(), block.blockFormat().alignment()))
        block = block.next()
    assert blocks[0][0] == "Then" and blocks[2][0] == "now aaaa \ufffc aaaa."
    assert blocks[1][0] == "\ufffc" and blocks[1][1] & Qt.AlignmentFlag.AlignHCenter
    line_block = document.findBlockByNumber(2)
    line = line_block.layout().lineAt(0)
    image_left, image_right = line.cursorToX(9)[0], line.cursorToX(10)[0]
    top = int(line_block.layout().position().y())
    painted = paint(document)
    text_color = QColor(DEFAULT_THEME.text)

    def lowest_ink(columns) -> int:
        rows = [y for x in columns for y in range(top, min(painted.height(), top + int(line.height()) + 4))
                if painted.pixelColor(x, y).lightness() < 160 and near(painted.pixelColor(x, y), text_color.name(), 90)]
        return max(rows)

    # "a" and "x" have no descender: their bottoms rest on the same baseline, give or take antialiasing
    assert abs(lowest_ink(range(int(image_left), int(image_right))) - lowest_ink(range(int(image_left) - 4))) <= 2


def test_a_formula_wider_than_the_column_is_shrunk_to_fit(qapp):
    latex = " + ".join(f"x_{{{i}}}" for i in range(30))
    document = markdown_document(f"$${latex}$$", 200, DEFAULT_THEME)
    assert document.idealWidth() <= 201
    (fmt,) = math_fragments(document)
    assert math_images.math_image_size(document, fmt).width() <= 200


def test_while_streaming_a_formula_is_raw_until_its_closing_delimiter_arrives(qapp, load_calls):
    ticks = iter(range(10_000))
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: next(ticks), tails=RenderNow())  # each update a second later: always re-rendered
    text = ""
    seen = []
    for delta in ["The sum ", "$$\\sum_{i=1}", "^{n} i", "$", "$ and inline $x", "^2", "$ done."]:
        text += delta
        documents = flat(live.update(text, 500))
        seen.append((sum(len(image_names(d)) for d in documents), "".join(d.toPlainText() for d in documents)))
    assert seen[0] == (0, "The sum")
    assert seen[1] == (0, "The sum $$\\sum_{i=1}") and seen[2][0] == 0 and seen[3][0] == 0  # one `$` does not close `$$`
    assert seen[4][0] == 1 and "\\sum" not in seen[4][1] and seen[4][1].endswith("and inline $x")
    assert seen[5][0] == 1 and seen[5][1].endswith("$x^2")
    assert seen[6][0] == 2 and seen[6][1].endswith("and inline \ufffc done.")
    final = flat([live.finish(text, 500)])
    assert sum(len(image_names(d)) for d in final) == 2 and load_calls == []


def test_a_streamed_reply_in_the_view_shows_the_formula_once_it_is_closed(qtbot, load_calls):
    model = TranscriptModel()
    model.set_messages([Message.user("Integrate")])
    view = show_view(qtbot, model, 700, 500)
    reply = Message.assistant("m")
    accumulate(reply, ev.Start(model="m"))
    model.append_message(reply)

    def shown() -> list[str]:
        view.viewport().repaint()
        layout = view.delegate.layout(model.index(model.rowCount() - 1, 0))
        return [name for part in layout.parts for d in flat(part.documents) for name in image_names(d)]

    accumulate(reply, ev.TextDelta(index=0, text="So \\[\\int_0^1 x\\,dx"))
    model.message_changed(reply.id)
    assert shown() == []
    accumulate(reply, ev.TextDelta(index=0, text=" = \\tfrac{1}{2}\\]\n\nDone."))
    accumulate(reply, ev.Done(reason="end_turn"))
    model.message_changed(reply.id)
    assert shown() == ["math:0"] and load_calls == []


HOSTILE = ("![x](math:0) ![y](math:1) [z](math:0) <img src=\"math:0\"> <img src='math:1' width=999> "
           "\ue0000\ue001 \ue0001\ue001 and a real $y^2$")


def test_a_model_cannot_reach_our_images_or_load_anything(qapp, load_calls):
    document = markdown_document(HOSTILE, 600, DEFAULT_THEME)
    assert image_names(document) == ["math:0"]  # only the one real formula's
    assert anchors(document) == [] and load_calls == []
    shown = document.toPlainText()
    assert "<img src=\"math:0\">" in shown and "<img src='math:1' width=999>" in shown
    assert "🖼 x" in shown and "🖼 y" in shown and "\ufffd0\ufffd" in shown  # placeholders written by a model are not ours
    without_math = markdown_document(HOSTILE.replace("$y^2$", "y"), 600, DEFAULT_THEME)
    assert image_names(without_math) == [] and load_calls == []
    assert "<img" not in render_markdown(HOSTILE.replace("$y^2$", "y"), DEFAULT_THEME, math={})


def test_an_image_format_naming_math_without_our_resource_draws_nothing(qapp, load_calls):
    document = InertDocument()
    document.setHtml('<p>a<img src="math:0">b<img src="file:///etc/hostname"></p>')
    document.setTextWidth(300)
    bare = InertDocument()
    bare.setHtml("<p>ab</p>")
    bare.setTextWidth(300)
    assert document.size() == bare.size()  # nothing takes room
    paint(document)
    assert {(url, result) for _kind, url, result in load_calls} <= {("math:0", None)}  # never file:, never a result


def test_without_a_document_formulas_show_as_their_source(qapp):
    out = render_markdown("Area $\\pi r^2$ and\n\n$$\\int f$$", DEFAULT_THEME)
    assert "<code>$\\pi r^2$</code>" in out and "<code>$$\\int f$$</code>" in out and "<img" not in out


def test_a_display_formula_splits_its_paragraph_only_outside_emphasis_and_links(qapp):
    out = render_markdown("*a $$x$$ b* and [l $$y$$](https://example.com) then $$z$$ end", DEFAULT_THEME, math={})
    assert out.count('<p align="center">') == 1 and '<p align="center"><img src="math:0" title="$$z$$"></p><p>end</p>' in out
    assert "<em>a <img" in out and "b</em>" in out and '<a href="https://example.com">l <img' in out


LAZY_SCRIPT = r"""
import json, sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from desktop_copilot.qt.window.main_window import MainWindow
from desktop_copilot.qt.transcript.parts.documents import markdown_document
from desktop_copilot.qt.common.theme import DEFAULT_THEME
seen = {"at_start": sorted(m for m in ("ziamath", "latex2mathml", "PySide6.QtSvg") if m in sys.modules)}
markdown_document("No formula here, just $5 and `$x$`.", 400, DEFAULT_THEME)
seen["without_formulas"] = "ziamath" in sys.modules
markdown_document("Now $x^2$.", 400, DEFAULT_THEME)
seen["with_a_formula"] = "ziamath" in sys.modules and "PySide6.QtSvg" in sys.modules
print(json.dumps(seen))
"""


def test_the_renderer_is_imported_only_when_a_formula_appears():
    result = subprocess.run([sys.executable, "-c", LAZY_SCRIPT], capture_output=True, text=True, timeout=120, check=False,
                            env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"}, cwd=Path(__file__).parents[4])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"at_start": [], "without_formulas": False, "with_a_formula": True}
