"""The files waiting in the composer: the paperclip button and its file dialog, a removable chip per file
(thumbnail or kind, name, size), and a message under the composer when a file cannot be attached. Files are read
and checked against the model's limits as they are added, so nothing too big is ever sent."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMimeData, QObject, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import QFileDialog, QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from desktop_copilot.core.content.attachments import AttachmentError, attachment_from_bytes, read_attachment
from desktop_copilot.core.conversation.models import ImageBlock
from desktop_copilot.core.providers.attachment_limits import Attachment, AttachmentLimits, human_size, problem
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.common.theme_switch import current_theme, themed_style_sheet
from desktop_copilot.qt.transcript.parts.attachments import chip_lines, decode_image

MAX_ATTACHMENTS = 20
"""Files that can go with one message at most."""
CHIP_THUMBNAIL = QSize(36, 36)
NAME_CHARS = 28


def dropped_files(mime: QMimeData) -> list[str]:
    """The local files a drop or paste carries (URLs of other kinds are left to the text box)."""
    if not mime.hasUrls():
        return []
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile() and url.toLocalFile()]


def pasted_image(mime: QMimeData) -> QImage | None:
    """The image a paste or drop carries, when it carries no text: a copy from a spreadsheet or a web page also
    holds a picture of what was copied, and then the text is what is meant."""
    if not mime.hasImage() or mime.text().strip():
        return None
    image = mime.imageData()
    return image if isinstance(image, QImage) and not image.isNull() else None


def paperclip_icon(color: str, size: int = 20) -> QIcon:
    """A paperclip drawn with a path (no icon file, no emoji font needed)."""
    pixmap = QPixmap(size * 2, size * 2)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(size * 2 / 24, size * 2 / 24)
    painter.translate(12, 12)
    painter.rotate(40)
    painter.translate(-10, -12)
    path = QPainterPath(QPointF(10, 7))
    path.lineTo(10, 17)
    path.arcTo(QRectF(6, 15, 4, 4), 0, -180)
    path.lineTo(6, 5)
    path.arcTo(QRectF(6, 1, 8, 8), 180, -180)
    path.lineTo(14, 18)
    path.arcTo(QRectF(4, 13, 10, 10), 0, -180)
    path.lineTo(4, 8)
    painter.setPen(QPen(QColor(color), 1.6))
    painter.drawPath(path)
    painter.end()
    pixmap.setDevicePixelRatio(2)
    return QIcon(pixmap)


def png_bytes(image: QImage) -> bytes:
    """`image` encoded as PNG."""
    array = QByteArray()
    buffer = QBuffer(array)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(array.data())


@themed_style_sheet
def style_sheet(theme: Theme) -> str:
    return f"""
        QFrame#attachmentChip {{ background: {theme.background}; border: 1px solid {theme.border}; border-radius: 8px; }}
        QFrame#attachmentChip QLabel {{ background: transparent; border: none; }}
        QLabel#attachmentName {{ color: {theme.text}; }}
        QLabel#attachmentDetail {{ color: {theme.muted}; }}
        QFrame#attachmentChip QLabel#attachmentBadge {{ color: {theme.card}; background: {theme.accent}; border-radius: 6px; font-weight: 600; }}
        QToolButton#removeAttachment {{ color: {theme.muted}; background: transparent; border: none; padding: 0 4px; }}
        QToolButton#removeAttachment:hover {{ color: {theme.text}; background: {theme.button_hover}; border-radius: 6px; }}
        QToolButton#attachButton {{ background: transparent; border: none; border-radius: 8px; padding: 4px; }}
        QToolButton#attachButton:hover {{ background: {theme.button_hover}; }}
        QLabel#attachmentNotice {{ color: {theme.error_text}; background: transparent; border: none; }}
    """


class AttachmentChip(QFrame):
    """One waiting file: a thumbnail (images) or its kind, the name, the size, and × to remove it."""

    sig_remove = Signal()

    def __init__(self, block: Attachment, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentChip")
        self.block = block
        badge_text, name, detail = chip_lines(block)
        self.thumbnail = QLabel(self, objectName="attachmentBadge")
        self.thumbnail.setFixedSize(CHIP_THUMBNAIL)
        self.thumbnail.setAlignment(Qt.AlignmentFlag.AlignCenter)
        image = decode_image(block.data, CHIP_THUMBNAIL) if isinstance(block, ImageBlock) else None
        if image is not None:
            self.thumbnail.setObjectName("attachmentThumbnail")
            self.thumbnail.setPixmap(QPixmap.fromImage(image))
        else:
            self.thumbnail.setText(badge_text)
        shown = name if len(name) <= NAME_CHARS else name[: NAME_CHARS // 2 - 1] + "…" + name[-(NAME_CHARS // 2):]
        self.name_label = PlainLabel(shown, self, objectName="attachmentName")
        self.name_label.setToolTip(name)
        self.detail_label = PlainLabel(detail or human_size(block.size), self, objectName="attachmentDetail")
        self.remove_button = QToolButton(self, objectName="removeAttachment", text="×")
        self.remove_button.setToolTip(self.tr("Remove {name}").format(name=name))
        self.remove_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.remove_button.clicked.connect(self.sig_remove)
        lines = QVBoxLayout()
        lines.setContentsMargins(0, 0, 0, 0)
        lines.setSpacing(0)
        lines.addWidget(self.name_label)
        lines.addWidget(self.detail_label)
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 4, 2, 4)
        row.setSpacing(8)
        row.addWidget(self.thumbnail)
        row.addLayout(lines)
        row.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignTop)


class AttachmentTray(QObject):
    """The composer's attachments: `attach_button`, the `chips` row above the text box, the `notice` under it."""

    sig_changed = Signal()

    def __init__(self, parent: QWidget, *, limits: Callable[[], AttachmentLimits | None]) -> None:
        super().__init__(parent)
        self._parent = parent
        self._limits = limits
        self._chips: list[AttachmentChip] = []
        self._submitted: list[Attachment] = []
        self._pasted = 0
        self.file_dialog: QFileDialog | None = None
        self.attach_button = QToolButton(parent, objectName="attachButton")
        self.attach_button.setIcon(paperclip_icon(DEFAULT_THEME.muted))
        self.attach_button.setIconSize(QSize(20, 20))
        self.attach_button.setToolTip(self.tr("Attach images, PDFs or text files (or drop them here, or paste an image)"))
        self.attach_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.attach_button.clicked.connect(self.pick_files)
        self.chips = QWidget(parent, objectName="attachmentChips")
        self._row = QHBoxLayout(self.chips)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(6)
        self._row.addStretch(1)
        self.chips.hide()
        self.notice = PlainLabel(parent, objectName="attachmentNotice")
        self.notice.setWordWrap(True)
        self.notice.hide()
        for widget in (self.attach_button, self.chips, self.notice):
            widget.setStyleSheet(style_sheet(current_theme()))

    def attachments(self) -> list[Attachment]:
        return [chip.block for chip in self._chips]

    # --- adding ---------------------------------------------------------------------

    def pick_files(self) -> QFileDialog:
        """Open the file dialog (non-blocking); the files chosen are added."""
        if self.file_dialog is None:
            dialog = QFileDialog(self._parent, self.tr("Attach files"))
            dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
            dialog.setNameFilters([self.tr("Images, PDFs and text files (*)"),
                                   self.tr("Images (*.png *.jpg *.jpeg *.gif *.webp)"), self.tr("PDF documents (*.pdf)")])
            dialog.filesSelected.connect(self.add_files)
            self.file_dialog = dialog
        self.file_dialog.open()
        return self.file_dialog

    def add_files(self, paths: list[str]) -> int:
        """Read and add `paths`; the ones that cannot be attached are named in the notice. How many were added."""
        added, problems = 0, []
        for path in paths:
            try:
                block = read_attachment(path)
            except AttachmentError as exc:
                problems.append(str(exc))
                continue
            added += self._add(block, problems)
        self._show(problems)
        return added

    def add_image(self, image: QImage) -> bool:
        """Add a pasted (or dropped) image as a PNG file."""
        self._pasted += 1
        name = self.tr("Pasted image.png") if self._pasted == 1 else self.tr("Pasted image {n}.png").format(n=self._pasted)
        problems: list[str] = []
        try:
            added = self._add(attachment_from_bytes(png_bytes(image), name), problems)
        except AttachmentError as exc:
            problems.append(str(exc))
            added = 0
        self._show(problems)
        return bool(added)

    def _add(self, block: Attachment, problems: list[str]) -> int:
        limits = self._limits()
        reason = problem(block, limits) if limits is not None else ""
        if reason:
            problems.append(reason)
            return 0
        if len(self._chips) >= MAX_ATTACHMENTS:
            problems.append(self.tr("At most {count} files can go with one message; {name} was not added.").format(count=MAX_ATTACHMENTS, name=block.name))
            return 0
        if any(chip.block == block for chip in self._chips):
            return 0  # the same file twice
        chip = AttachmentChip(block, self.chips)
        chip.sig_remove.connect(lambda chip=chip: self.remove(chip.block))
        self._row.insertWidget(len(self._chips), chip)
        self._chips.append(chip)
        chip.show()
        self.chips.show()
        self.sig_changed.emit()
        return 1

    def _show(self, problems: list[str]) -> None:
        self.notice.setText("\n".join(problems))
        self.notice.setVisible(bool(problems))

    # --- removing -------------------------------------------------------------------

    def remove(self, block: Attachment) -> bool:
        for chip in self._chips:
            if chip.block is block:
                self._chips.remove(chip)
                chip.hide()
                chip.deleteLater()
                self.chips.setVisible(bool(self._chips))
                self._show([])
                self.sig_changed.emit()
                return True
        return False

    def mark_submitted(self) -> None:
        """The chips now present go with the message being sent (removed once it is in the conversation)."""
        self._submitted = self.attachments()

    def remove_submitted(self) -> None:
        for block in self._submitted:
            self.remove(block)
        self._submitted = []
        self._show([])
