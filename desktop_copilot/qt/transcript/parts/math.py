"""LaTeX formulas as images for the transcript: ziamath (pure Python: LaTeX → MathML → SVG, with its own STIX Two
Math font) draws a formula, QtSvg rasterises it at the screen's pixel ratio in the text's colour; a formula that
does not parse gives None, and its source is shown instead. Also the document's handler that paints our own
`math:` images (and nothing else).

ziamath and QtSvg are imported when the first formula is rendered, never at start-up."""

from __future__ import annotations

import math
import re
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSizeF, QUrl
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication, QImage, QPainter, QTextDocument, QTextFormat

MATH_SCHEME = "math"
"""Our formula images are added to a document as resources named `math:N`; nothing else is ever drawn."""
MATH_SCALE = 1.18
"""STIX Two Math looks smaller than a UI sans-serif of the same size: formulas are drawn this much larger."""
MAX_SIDE = 4000
"""A formula image is never wider or taller than this many logical pixels (a hostile formula could ask for more)."""
MAX_WORK = 800
"""A formula whose layout would cost more than this is shown as its source. ziamath lays out each row's children
twice (once to measure stretchy operators), so its cost doubles with every level of nesting: `{{{{{{{{{{x}}}}}}}}}}`
takes seconds. The estimate (see `_work`) is roughly half a millisecond a unit; everyday formulas cost 50 to 250."""
CACHE_ENTRIES = 512
_NUMBERING = re.compile(r"\\(?:tag|label)\*?\{[^{}]*\}|\\(?:nonumber|notag)\b")

_cache: OrderedDict[tuple, FormulaImage | None] = OrderedDict()
_cache_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class FormulaImage:
    image: QImage
    """Transparent, ink in the requested colour; its device pixel ratio is set, so its logical size is
    `image.deviceIndependentSize()`."""
    baseline: float
    """Logical pixels from the image's top to the formula's baseline."""


def _ziamath():
    with warnings.catch_warnings():  # ziamath 0.13 finds its font with importlib.resources.path, deprecated in 3.11
        warnings.simplefilter("ignore", DeprecationWarning)
        import ziamath

    ziamath.config.svg2 = False  # SVG 1.1 paths: QtSvg does not draw SVG 2's <symbol>/<use href>
    return ziamath


def pixel_size(font: QFont) -> float:
    """The em size of `font` in logical pixels (what QTextDocument lays it out at)."""
    if font.pixelSize() > 0:
        return float(font.pixelSize())
    screen = QGuiApplication.primaryScreen()
    return font.pointSizeF() * (screen.logicalDotsPerInchY() if screen is not None else 96.0) / 72


def render_formula(latex: str, display: bool, size: float, color: str, device_pixel_ratio: float | None = None) -> FormulaImage | None:
    """`latex` drawn `size` logical pixels high per em, in `color` (`#rrggbb`); display style (big operators,
    limits below) or inline; None when it does not parse or draws nothing. Results, failures included, are cached."""
    ratio = device_pixel_ratio or _device_pixel_ratio()
    key = (latex, display, round(size, 2), color, ratio)
    with _cache_lock:  # streaming tails render on a worker thread (tail_renderer), finished text on the GUI thread
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    try:
        result = _render(latex, display, size * MATH_SCALE, color, ratio)
    except Exception:  # noqa: BLE001 - ziamath and latex2mathml raise many kinds (and RecursionError) on bad input
        result = None
    with _cache_lock:
        _cache[key] = result
        while len(_cache) > CACHE_ENTRIES:
            _cache.popitem(last=False)
    return result


def _device_pixel_ratio() -> float:
    """The highest pixel ratio of the screens: an image drawn on a lower one is scaled down, never up."""
    app = QGuiApplication.instance()
    return max(1.0, float(app.devicePixelRatio())) if app is not None else 1.0


def _render(latex: str, display: bool, size: float, color: str, ratio: float) -> FormulaImage | None:
    from xml.etree import ElementTree

    from PySide6.QtCore import QByteArray
    from PySide6.QtSvg import QSvgRenderer

    ziamath = _ziamath()
    from ziamath.tex import tex2mml

    mathml = ElementTree.fromstring(tex2mml(_NUMBERING.sub("", latex), inline=not display))  # numbers: none in a chat
    if _work(mathml) > MAX_WORK:
        return None
    mathml.attrib["mathcolor"] = color
    formula = ziamath.Math(mathml, size=size, margin=1.0)
    if _unknown_command(formula.mathml):
        return None
    box = formula.node.bbox
    width, height = box.xmax - box.xmin + 2 * formula.margin, box.ymax - box.ymin + 2 * formula.margin
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        return None
    renderer = QSvgRenderer(QByteArray(formula.svg().encode("utf-8")))
    if not renderer.isValid():
        return None
    image = QImage(math.ceil(width * ratio), math.ceil(height * ratio), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, width * ratio, height * ratio))
    painter.end()
    image.setDevicePixelRatio(ratio)
    return FormulaImage(image, box.ymax + formula.margin) if _has_ink(image) else None


def _work(element, weight: int = 1) -> int:
    """The layout cost of a MathML tree as ziamath spends it: each element counts once per layout of it, and every
    enclosing row doubles that."""
    inner = weight * 2 if element.tag.rpartition("}")[2] == "mrow" else weight
    return weight * (1 + len(element.text or "") // 2) + sum(_work(child, inner) for child in element)


def _unknown_command(mathml) -> bool:
    """latex2mathml keeps a command it does not know as text (`\\foo` shown as "\\foo"): treat it as not parsing."""
    return any((element.text or "").startswith("\\") for element in mathml.iter() if element.tag in ("mi", "mo", "mtext"))


def _has_ink(image: QImage) -> bool:
    """Something was drawn (`\\,` alone parses and draws nothing); every column of every few rows is looked at."""
    step = max(1, min(image.width(), image.height()) // 16)
    return any(image.pixelColor(x, y).alpha() for y in range(0, image.height(), step) for x in range(0, image.width(), 1))


def inline_image(formula: FormulaImage, font: QFont) -> QImage:
    """`formula` padded so that Qt's middle alignment of inline objects (centred half an x-height above the
    baseline) puts the formula's baseline on the text's: Qt gives a middle-aligned object of height h an ascent
    of (h + x/2) / 2, with x the x-height of the text's font."""
    ratio = formula.image.devicePixelRatio()
    height = formula.image.height() / ratio
    above, below = formula.baseline, height - formula.baseline
    half_x = _integer_x_height(font) / 2
    pad_top = below - above + half_x  # pad_top - pad_bottom, the one of them that is positive
    top, bottom = (pad_top, 0.0) if pad_top > 0 else (0.0, -pad_top)
    if top < 0.5 and bottom < 0.5:
        return formula.image
    padded = QImage(formula.image.width(), formula.image.height() + round((top + bottom) * ratio), formula.image.format())
    padded.fill(0)
    painter = QPainter(padded)
    painter.drawImage(0, round(top * ratio), formula.image)
    painter.end()
    padded.setDevicePixelRatio(ratio)
    return padded


def _integer_x_height(font: QFont) -> float:
    return QFontMetrics(font).xHeight()  # the integer metrics Qt's layout uses for middle alignment


def _registered(document: QTextDocument, format: QTextFormat) -> QImage | None:
    """The image this object stands for when it is one of ours: a `math:` name the document holds an image for.
    Any other name is not even looked up (a lookup of a missing resource would ask loadResource)."""
    name = format.toImageFormat().name() if format.isImageFormat() else ""
    if not name.startswith(MATH_SCHEME + ":"):
        return None
    resource = document.resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
    return resource if isinstance(resource, QImage) and not resource.isNull() else None


def math_image_size(document: QTextDocument, format: QTextFormat) -> QSizeF:
    """For the document's image handler: our formula's logical size (at most the text's width), nothing for any other image."""
    image = _registered(document, format)
    if image is None:
        return QSizeF(0, 0)
    size = image.deviceIndependentSize()
    room = document.textWidth()
    return size * (room / size.width()) if 0 < room < size.width() else size  # a wide formula is shrunk to fit


def draw_math_image(painter: QPainter, rect: QRectF, document: QTextDocument, format: QTextFormat) -> None:
    """For the document's image handler: paints our formula into `rect`; any other image is not drawn."""
    image = _registered(document, format)
    if image is not None:
        painter.drawImage(rect, image)
