"""The context meter by the composer: "38k / 200k" and a thin bar (amber from 70 %, red from 90 %) of what the next
request would send against the model's context window (core/context/budget.py), its tooltip split by part. It follows
the typing (at most one measure per TYPING_MS, the draft estimated alone), replies, the model, attachments and
compactions."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QSizePolicy, QWidget

from desktop_copilot.core.context.budget import ContextBreakdown, measure
from desktop_copilot.core.profiles.profile import Figure
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.common.theme_switch import current_theme, themed_style_sheet

if TYPE_CHECKING:
    from desktop_copilot.qt.bridge.controller import ChatController
    from desktop_copilot.qt.window.composer import Composer

log = logging.getLogger(__name__)

TYPING_MS = 150
"""While the user types, the meter measures at most this often (the first change starts the wait, later ones join it)."""
STREAMING_MS = 1000
"""While the conversation shown streams a reply, the meter measures at most this often."""
WARN_AT, FULL_AT = 0.7, 0.9
BAR_SIZE = QSize(44, 4)
LEVEL_COLOURS = {"normal": "muted", "warn": "meter_warn", "full": "meter_full"}
"""The Theme colour of the bar's fill at each level (the figures take muted, warn_text and error_text: text colours)."""


def level_of(fraction: float) -> str:
    """"normal", "warn" from WARN_AT of the window, "full" from FULL_AT."""
    return "full" if fraction >= FULL_AT else "warn" if fraction >= WARN_AT else "normal"


def short_tokens(count: int) -> str:
    """950, 9.5k, 38k, 200k, 1.5M: the meter's figures."""
    if count < 1000:
        return str(count)
    if count < 9_950:
        return f"{count / 1000:.1f}k".replace(".0k", "k")
    if count < 999_500:
        return f"{round(count / 1000)}k"
    return f"{count / 1_000_000:.1f}M".replace(".0M", "M")


def _number(count: int) -> str:
    return f"{count:,}"


@themed_style_sheet
def meter_style_sheet(theme: Theme) -> str:
    return f"""
        QLabel#contextMeterText {{ color: {theme.muted}; font-size: 8.5pt; background: transparent; border: none; }}
        QLabel#contextMeterText[level="warn"] {{ color: {theme.warn_text}; }}
        QLabel#contextMeterText[level="full"] {{ color: {theme.error_text}; font-weight: 600; }}
    """


@dataclass(frozen=True, slots=True)
class MeterContext:
    """What the next request is measured against, read again when the model, the settings or the conversation change
    (not while typing)."""

    provider: str
    model: str
    window: Figure[int] | None
    """The profile's context window with its source; None when it cannot be known (an unknown provider)."""
    output_reserve: int = 0
    system: str | None = None
    tools: tuple[Any, ...] | None = None
    """The tools the next request offers; None until the user first types (the tool modules load then, not at start)."""


def read_context(controller: ChatController, *, with_tools: bool) -> MeterContext:
    """The model, window, output reserve, system prompt and (`with_tools`) tools of the conversation's next request."""
    session = controller.session
    try:
        provider, model = controller.provider_id, controller.model_name
        options = session.options(provider)
        window = session.runtime.profile(provider, model).context_window
    except Exception:  # noqa: BLE001 - an endpoint removed since, a broken setting: the meter says it does not know
        log.debug("no context window for the meter", exc_info=True)
        return MeterContext(session.conversation.provider or "", session.conversation.model or "", None)
    return MeterContext(provider, model, window if window.value > 0 else None, options.max_tokens, options.system,
                        offered_tools(controller) if with_tools else None)


def offered_tools(controller: ChatController) -> tuple[Any, ...]:
    """The tools the next request offers as far as can be told without reading the keyring: those switched on (or the
    conversation's assistant's), the workspace tools only with a workspace, the knowledge search with a source."""
    from desktop_copilot.core.tools.base import can_run_here

    session = controller.session
    runtime = session.runtime
    offered = session.offered_tools()
    workspace, knowledge = runtime.workspace(), runtime.has_knowledge()
    return tuple(tool for tool in runtime.registry.all()
                 if (tool.name in offered if offered is not None else tool.name not in runtime.switched_off())
                 and can_run_here(tool, workspace=workspace, knowledge=knowledge))


class MeterBar(QWidget):
    """The thin bar: the window's track, filled as far as the next request reaches, in the level's colour."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("contextMeterBar")
        self.setFixedSize(BAR_SIZE)
        self.theme = current_theme()
        self.fraction = 0.0
        self.level = "normal"

    def set_fill(self, fraction: float, level: str) -> None:
        if (fraction, level) != (self.fraction, self.level):
            self.fraction, self.level = fraction, level
            self.update()

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def fill_colour(self) -> QColor:
        return self.theme.color(LEVEL_COLOURS[self.level])

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        rect = QRectF(self.rect())
        radius = rect.height() / 2
        painter.setBrush(self.theme.color("border"))
        painter.drawRoundedRect(rect, radius, radius)
        if self.fraction > 0:
            filled = QRectF(rect.left(), rect.top(), max(rect.height(), rect.width() * min(1.0, self.fraction)), rect.height())
            painter.setBrush(self.fill_colour())
            painter.drawRoundedRect(filled, radius, radius)


class ContextMeter(QWidget):
    """The figures and the bar; `breakdown` is the last measure."""

    def __init__(self, controller: ChatController, composer: Composer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("contextMeter")
        self.setStyleSheet(meter_style_sheet(current_theme()))
        self.setAccessibleName(self.tr("Context window used"))
        self.controller, self.composer = controller, composer
        self.label = PlainLabel(self, objectName="contextMeterText")
        self.label.setProperty("level", "normal")
        self.bar = MeterBar(self)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addWidget(self.label, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.bar, 0, Qt.AlignmentFlag.AlignVCenter)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.breakdown: ContextBreakdown | None = None
        self.context: MeterContext | None = None
        self._wants_tools = False
        self._timer = QTimer(self, singleShot=True, interval=TYPING_MS)
        self._timer.timeout.connect(self.update_now)
        composer.edit.textChanged.connect(self._typed)
        composer.tray.sig_changed.connect(self._typed)
        controller.sig_model_changed.connect(self.refresh)
        controller.sig_run_finished.connect(self._reply_finished)
        controller.sig_usage_changed.connect(self.refresh)  # also another conversation opened
        controller.sig_context_changed.connect(self.refresh)  # a compaction made or undone

    def text(self) -> str:
        return self.label.text()

    @property
    def level(self) -> str:
        return self.label.property("level")

    def schedule(self) -> None:
        """Measure soon: changes within TYPING_MS are measured once; while the conversation shown streams a reply, within
        STREAMING_MS (each measure then weighs the growing reply again: ~13 ms of the GUI thread at 2 MB)."""
        if not self._timer.isActive():
            self._timer.setInterval(STREAMING_MS if self.controller.busy else TYPING_MS)
            self._timer.start()

    def refresh(self, *_changed: object) -> None:
        """The model, settings or conversation may have changed: read them again at the next measure (a slot for any
        signal that says so)."""
        self.context = None
        self.schedule()

    def _reply_finished(self, _outcome: str = "", _detail: str = "") -> None:
        self._wants_tools = True  # the run loaded them
        self.refresh()

    def _typed(self) -> None:
        if not self._wants_tools:
            self._wants_tools = True
            self.context = None
        self.schedule()

    def update_now(self) -> ContextBreakdown:
        """Measure the next request now and show it."""
        self._timer.stop()
        if self.context is None:
            self.context = read_context(self.controller, with_tools=self._wants_tools)
        context = self.context
        breakdown = measure(self.controller.session.conversation, window=context.window.value if context.window else 0,
                            output_reserve=context.output_reserve, system=context.system, tools=context.tools or (),
                            draft=self.composer.text(), attachments=self.composer.attachments(), provider=context.provider)
        self._show(breakdown, context)
        return breakdown

    def _show(self, breakdown: ContextBreakdown, context: MeterContext) -> None:
        self.breakdown = breakdown
        known = breakdown.window > 0
        text = self.tr("{used} / {window}").format(used=short_tokens(breakdown.total),
                                                   window=short_tokens(breakdown.window) if known else "—")
        if text != self.label.text():
            self.label.setText(text)
        level = level_of(breakdown.fraction) if known else "normal"
        if level != self.level:
            self.label.setProperty("level", level)
            self.label.style().unpolish(self.label)
            self.label.style().polish(self.label)
        self.bar.set_fill(breakdown.fraction if known else 0.0, level)
        tooltip = self.tooltip_text(breakdown, context)
        self.setToolTip(tooltip)
        self.setAccessibleDescription(tooltip)

    def tooltip_text(self, breakdown: ContextBreakdown, context: MeterContext) -> str:
        """The next request by part, one a line, and where the window's figure came from."""
        from desktop_copilot.qt.settings.profile_table import figure_note

        if breakdown.window > 0:
            lines = [self.tr("Next request: {used} of {window} tokens ({percent} %)").format(
                used=_number(breakdown.total), window=_number(breakdown.window), percent=round(breakdown.fraction * 100))]
        else:
            lines = [self.tr("Next request: {used} tokens").format(used=_number(breakdown.total))]
        parts = ((self.tr("System prompt and tools: {count}"), breakdown.system_and_tools),
                 (self.tr("History: {count}"), breakdown.history), (self.tr("Your message: {count}"), breakdown.draft),
                 (self.tr("Attachments: {count}"), breakdown.attachments),
                 (self.tr("Reserved for the reply: {count}"), breakdown.output_reserve))
        lines += ["    " + words.format(count=_number(count)) for words, count in parts]
        if breakdown.exact_tokens:
            lines.append(self.tr("Counted by the provider: {exact}; estimated: {estimated}").format(
                exact=_number(breakdown.exact_tokens), estimated=_number(breakdown.estimated_tokens)))
        else:
            lines.append(self.tr("All estimated: no usage the provider reported applies yet."))
        if context.window is not None:
            lines.append(self.tr("Context window of {model}: {count} tokens").format(model=context.model,
                                                                                    count=_number(context.window.value)))
            lines.append("    " + figure_note(context.window))
            lines.append(self.tr("Change it in Settings ▸ Model profiles."))
        else:
            lines.append(self.tr("The context window of this model is not known."))
        return "\n".join(lines)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt name
        """Back in the window (from Settings, the system prompt dialog): the window or reserve may have changed."""
        if event.type() == QEvent.Type.ActivationChange and isinstance(watched, QWidget) and watched.isActiveWindow():
            self.refresh()
        return False


def install_context_meter(window: QMainWindow) -> ContextMeter:
    """Puts the meter at the right of the composer's hint line (the hint wraps rather than widening the composer) and
    follows the window: another conversation, back from a dialog."""
    composer = window.composer
    meter = ContextMeter(window.controller, composer, composer)
    column = composer.layout()
    index = column.indexOf(composer.hint)
    column.removeWidget(composer.hint)
    composer.hint.setWordWrap(True)
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(10)
    row.addWidget(composer.hint, 1)
    row.addWidget(meter, 0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    column.insertLayout(index, row)
    window.history.sig_current_changed.connect(meter.refresh)
    window.installEventFilter(meter)
    meter.refresh()
    return meter
