"""The Assistants page: the list of assistants (built-in ones first), and an editor for the selected one: name,
system prompt, provider and model, thinking, temperature and top-p, and which tools it offers. Changes are saved to
assistants.json at once (Save, or moving to another assistant); built-in assistants can only be duplicated."""

from __future__ import annotations

from pydantic import ValidationError
from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.core.config.assistants import (
    ALL_TOOLS,
    MAX_NAME_CHARS,
    MAX_THINKING_BUDGET,
    Assistant,
    AssistantError,
    AssistantLibrary,
)
from desktop_copilot.core.config.app_config import MIN_THINKING_BUDGET
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.common.generation_fields import temperature_row, top_p_row
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.models_page import group, hint, label
from desktop_copilot.qt.settings.styles import set_kind

ASSISTANT_ID_ROLE = Qt.ItemDataRole.UserRole
TOOL_NAME_ROLE = Qt.ItemDataRole.UserRole
THINKING_CHOICES = ("settings", "on", "off")


def _first_problem(error: ValidationError) -> str:
    item = error.errors(include_url=False)[0]
    where = {"name": QCoreApplication.translate("AssistantsPage", "The name"),
             "system": QCoreApplication.translate("AssistantsPage", "The system prompt"),
             "model": QCoreApplication.translate("AssistantsPage", "The model"),
             "provider": QCoreApplication.translate("AssistantsPage", "The provider")}
    field = where.get(str(item["loc"][0]) if item["loc"] else "", QCoreApplication.translate("AssistantsPage", "A value"))
    return QCoreApplication.translate("AssistantsPage", "{field} {problem}.").format(
        field=field, problem=item["msg"].removeprefix("Value error, "))


class AssistantsPage(QWidget):
    sig_assistants_changed = Signal()
    """An assistant was added, changed or deleted (and saved)."""

    def __init__(self, runtime: Runtime, library: AssistantLibrary | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="settingsPage")
        self.runtime = runtime
        self.library = library or AssistantLibrary.in_folder(runtime.paths.config_dir)
        self._current: Assistant | None = None
        self._loading = False
        self._dirty = False
        self.list = QListWidget(objectName="assistantList")
        self.list.setMinimumWidth(200)
        self.add_button = QPushButton(self.tr("Add"), objectName="addAssistantButton")
        self.duplicate_button = QPushButton(self.tr("Duplicate"), objectName="duplicateAssistantButton")
        self.delete_button = QPushButton(self.tr("Delete"), objectName="deleteAssistantButton")
        self.builtin_note = hint(self.tr("Built in: duplicate it to make a copy you can change."))
        self.name_edit = QLineEdit(objectName="assistantName", maxLength=MAX_NAME_CHARS)
        self.system_edit = QPlainTextEdit(objectName="assistantSystem")
        self.system_edit.setPlaceholderText(self.tr("What the model should know and how it should answer. "
                                                    "Empty: the model gets no system prompt."))
        self.system_edit.setMinimumHeight(160)
        self.provider_box = QComboBox(objectName="assistantProvider")
        self.model_box = QComboBox(objectName="assistantModel", editable=True)
        self.model_box.lineEdit().setPlaceholderText(self.tr("The provider's default model"))
        self.thinking_box = QComboBox(objectName="assistantThinking")
        self.budget_spin = QSpinBox(objectName="assistantBudget", minimum=MIN_THINKING_BUDGET, maximum=MAX_THINKING_BUDGET,
                                    singleStep=1024, suffix=self.tr(" tokens"))
        self.temperature = temperature_row(self)
        self.top_p = top_p_row(self)
        self.all_tools_radio = QRadioButton(self.tr("Every tool switched on in Settings ▸ Tools"))
        self.some_tools_radio = QRadioButton(self.tr("Only the tools ticked here"))
        self.knowledge_edit = QLineEdit()
        self.knowledge_edit.setPlaceholderText(self.tr("Every source"))
        self.tools_choice = QButtonGroup(self)
        self.tools_choice.addButton(self.all_tools_radio)
        self.tools_choice.addButton(self.some_tools_radio)
        self.tool_list = QListWidget(objectName="assistantTools")
        self.tool_list.setMinimumHeight(140)
        self.save_button = QPushButton(self.tr("Save"), objectName="primaryButton")
        self.revert_button = QPushButton(self.tr("Revert"))
        self.status = PlainLabel(objectName="keyMessage", wordWrap=True)
        self._fill_choices()
        self._layout()
        self._connect()
        self.reload()
        if self.library.problem:
            self._say(self.library.problem, "error")

    # --- building ----------------------------------------------------------------------

    def _fill_choices(self) -> None:
        self.provider_box.addItem(self.tr("Default provider (Settings ▸ Providers)"), None)
        for provider_id, spec in self.runtime.providers().items():
            self.provider_box.addItem(spec.label, provider_id)
        for choice, text in zip(THINKING_CHOICES, (self.tr("As in Settings ▸ Models"), self.tr("On"), self.tr("Off")), strict=True):
            self.thinking_box.addItem(text, choice)

    def _layout(self) -> None:
        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        buttons = QHBoxLayout()
        for button in (self.add_button, self.duplicate_button, self.delete_button):
            buttons.addWidget(button)
        left.addLayout(buttons)

        form = QFormLayout()
        form.addRow(label(self.tr("Name")), self.name_edit)
        form.addRow(label(self.tr("System prompt")), self.system_edit)
        form.addRow(label(self.tr("Provider")), self.provider_box)
        form.addRow(label(self.tr("Model")), self.model_box)
        thinking_row = QHBoxLayout()
        thinking_row.addWidget(self.thinking_box)
        thinking_row.addWidget(self.budget_spin)
        thinking_row.addStretch(1)
        form.addRow(label(self.tr("Thinking")), thinking_row)
        form.addRow(label(self.tr("Temperature")), self.temperature)
        form.addRow(label(self.tr("Top-p")), self.top_p)
        tools_column = QVBoxLayout()
        tools_column.addWidget(self.all_tools_radio)
        tools_column.addWidget(self.some_tools_radio)
        tools_column.addWidget(self.tool_list)
        tools_column.addWidget(hint(self.tr("A tool still needs its key, and the file tools a workspace folder.")))
        form.addRow(label(self.tr("Tools")), tools_column)
        knowledge_column = QVBoxLayout()
        knowledge_column.addWidget(self.knowledge_edit)
        knowledge_column.addWidget(hint(self.tr("The knowledge sources its search_knowledge searches, by name, separated by "
                                                "commas; empty: every source switched on in Settings ▸ Knowledge.")))
        form.addRow(label(self.tr("Knowledge")), knowledge_column)
        actions = QHBoxLayout()
        actions.addWidget(self.status, 1)
        actions.addWidget(self.revert_button)
        actions.addWidget(self.save_button)

        right = QVBoxLayout()
        right.addWidget(self.builtin_note)
        right.addWidget(group(self.tr("Assistant"), form))
        right.addLayout(actions)
        right.addStretch(1)

        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(16)
        row.addLayout(left, 0)
        row.addLayout(right, 1)

    def _connect(self) -> None:
        self.list.currentItemChanged.connect(self._on_current_changed)
        self.add_button.clicked.connect(self.add)
        self.duplicate_button.clicked.connect(self.duplicate)
        self.delete_button.clicked.connect(self.delete)
        self.save_button.clicked.connect(self.save)
        self.revert_button.clicked.connect(lambda: self._show(self._current))
        self.provider_box.currentIndexChanged.connect(self._on_provider_changed)
        self.thinking_box.currentIndexChanged.connect(self._update_enabled)
        self.tools_choice.buttonToggled.connect(lambda *_: self._update_enabled())
        for signal in (self.name_edit.textChanged, self.system_edit.textChanged, self.provider_box.currentIndexChanged,
                       self.model_box.currentTextChanged, self.thinking_box.currentIndexChanged, self.budget_spin.valueChanged,
                       self.tools_choice.buttonToggled, self.tool_list.itemChanged, self.temperature.sig_changed,
                       self.top_p.sig_changed, self.knowledge_edit.textChanged):
            signal.connect(self._on_edited)

    # --- the list ----------------------------------------------------------------------

    def reload(self, select: str | None = None) -> None:
        """Re-list the assistants, selecting `select` (else the one selected, else the first)."""
        select = select or (self._current.id if self._current else None)
        self.list.blockSignals(True)
        self.list.clear()
        for assistant in self.library.all():
            text = assistant.name + (self.tr("  · built in") if assistant.builtin else "")
            item = QListWidgetItem(text)
            item.setData(ASSISTANT_ID_ROLE, assistant.id)
            self.list.addItem(item)
        self.list.blockSignals(False)
        ids = [a.id for a in self.library.all()]
        self.list.setCurrentRow(ids.index(select) if select in ids else 0)

    def current(self) -> Assistant | None:
        return self._current

    def select(self, assistant_id: str) -> bool:
        for row in range(self.list.count()):
            if self.list.item(row).data(ASSISTANT_ID_ROLE) == assistant_id:
                self.list.setCurrentRow(row)
                return self._current is not None and self._current.id == assistant_id
        return False

    def _on_current_changed(self, item: QListWidgetItem | None, previous: QListWidgetItem | None) -> None:
        if self.is_dirty() and not self.save():  # a change is kept, not dropped, when moving on; a bad one holds us here
            self.list.blockSignals(True)
            self.list.setCurrentItem(previous)
            self.list.blockSignals(False)
            return
        self._show(self.library.get(item.data(ASSISTANT_ID_ROLE)) if item is not None else None)

    # --- the editor --------------------------------------------------------------------

    def _show(self, assistant: Assistant | None) -> None:
        self._current = assistant
        self._loading = True
        try:
            shown = assistant or Assistant(name="-")
            self.name_edit.setText(shown.name if assistant else "")
            self.system_edit.setPlainText(shown.system)
            self.provider_box.setCurrentIndex(max(0, self.provider_box.findData(shown.provider)))
            if shown.provider and self.provider_box.findData(shown.provider) < 0:  # an endpoint removed since
                self.provider_box.addItem(self.tr("{0} (not available)").format(shown.provider), shown.provider)
                self.provider_box.setCurrentIndex(self.provider_box.count() - 1)
            self._fill_models(shown.provider)
            self.model_box.setEditText(shown.model or "")
            choice = "settings" if shown.thinking is None else ("on" if shown.thinking else "off")
            self.thinking_box.setCurrentIndex(THINKING_CHOICES.index(choice))
            self.budget_spin.setValue(shown.thinking_budget)
            self.temperature.set_value(shown.temperature)
            self.top_p.set_value(shown.top_p)
            (self.all_tools_radio if shown.tools == ALL_TOOLS else self.some_tools_radio).setChecked(True)
            self._fill_tools(shown)
            self.knowledge_edit.setText(", ".join(sorted(shown.knowledge or ())))
        finally:
            self._loading = False
        self._dirty = False
        self._update_enabled()

    def _fill_models(self, provider_id: str | None) -> None:
        text = self.model_box.currentText()
        self.model_box.blockSignals(True)
        self.model_box.clear()
        for model in self._known_models(provider_id):
            self.model_box.addItem(model)
        self.model_box.setEditText(text)
        self.model_box.blockSignals(False)

    def _known_models(self, provider_id: str | None) -> list[str]:
        if provider_id is None:
            return []
        settings = self.runtime.settings
        listed: list[str] = []
        if settings is not None:
            cache = settings.provider_models.get(provider_id)
            listed = list(cache.model_ids) if cache else []
        spec = self.runtime.providers().get(provider_id)
        default = [spec.default_model] if spec is not None and spec.default_model else []
        return list(dict.fromkeys(default + listed))

    def _fill_tools(self, assistant: Assistant) -> None:
        self.tool_list.blockSignals(True)
        self.tool_list.clear()
        registered = {tool.name: tool for tool in self.runtime.registry.all()}
        chosen = set() if assistant.tools == ALL_TOOLS else set(assistant.tools)
        for name in [*registered, *sorted(chosen - set(registered))]:  # a chosen tool of a server not running now is kept
            tool = registered.get(name)
            text = tool.shown_name if tool is not None else self.tr("{0} (not available now)").format(name)
            item = QListWidgetItem(text)
            item.setData(TOOL_NAME_ROLE, name)
            if tool is not None:
                item.setToolTip(tool.description)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in chosen else Qt.CheckState.Unchecked)
            self.tool_list.addItem(item)
        self.tool_list.blockSignals(False)

    def _on_provider_changed(self) -> None:
        if not self._loading:
            self._fill_models(self.provider_box.currentData())
            self.model_box.setEditText("")  # another provider's model would not be understood
        self._update_enabled()

    def _on_edited(self, *_args: object) -> None:
        if not self._loading:
            self._dirty = True
            self._update_enabled()

    def is_dirty(self) -> bool:
        return self._dirty and self._current is not None and not self._current.builtin

    def _update_enabled(self) -> None:
        editable = self._current is not None and not self._current.builtin
        self.builtin_note.setVisible(self._current is not None and self._current.builtin)
        for widget in (self.name_edit, self.provider_box, self.thinking_box, self.all_tools_radio, self.some_tools_radio,
                       self.temperature, self.top_p):
            widget.setEnabled(editable)
        self.system_edit.setReadOnly(not editable)
        self.model_box.setEnabled(editable and self.provider_box.currentData() is not None)
        self.budget_spin.setEnabled(editable and self.thinking_box.currentData() == "on")
        self.tool_list.setEnabled(editable and self.some_tools_radio.isChecked())
        self.delete_button.setEnabled(editable)
        self.duplicate_button.setEnabled(self._current is not None)
        self.save_button.setEnabled(self.is_dirty())
        self.revert_button.setEnabled(self.is_dirty())

    def edited(self) -> Assistant:
        """The selected assistant as edited (ValidationError for a bad value)."""
        assert self._current is not None
        thinking = {"settings": None, "on": True, "off": False}[self.thinking_box.currentData()]
        if self.all_tools_radio.isChecked():
            tools: object = ALL_TOOLS
        else:
            tools = [self.tool_list.item(row).data(TOOL_NAME_ROLE) for row in range(self.tool_list.count())
                     if self.tool_list.item(row).checkState() == Qt.CheckState.Checked]
        provider = self.provider_box.currentData()
        return Assistant.model_validate({
            "id": self._current.id,
            "name": self.name_edit.text(),
            "system": self.system_edit.toPlainText(),
            "provider": provider,
            "model": self.model_box.currentText() if provider else None,
            "thinking": thinking,
            "thinking_budget": self.budget_spin.value(),
            "temperature": self.temperature.value(),
            "top_p": self.top_p.value(),
            "tools": tools,
            "knowledge": sorted({n.strip() for n in self.knowledge_edit.text().split(",") if n.strip()}) or None,
        })

    # --- actions -----------------------------------------------------------------------

    def save(self) -> bool:
        """Saves the edited assistant to assistants.json; False (and the reason shown) when it cannot be."""
        if not self.is_dirty():
            return True
        try:
            assistant = self.edited()
            self.library.update(assistant)
        except ValidationError as exc:
            self._say(self.tr("Not saved: {0}").format(_first_problem(exc)), "error")
            return False
        except AssistantError as exc:
            self._say(self.tr("Not saved: {0}").format(str(exc)), "error")
            return False
        self._current, self._dirty = assistant, False
        self._rename_item(assistant)
        self._say(self.tr("Saved."), "ok")
        self._update_enabled()
        self.sig_assistants_changed.emit()
        return True

    def add(self) -> Assistant | None:
        return self._added(lambda: self.library.add(Assistant(name=self.tr("New assistant"))))

    def duplicate(self) -> Assistant | None:
        if self._current is None:
            return None
        return self._added(lambda: self.library.duplicate(self._current.id))

    def _added(self, make) -> Assistant | None:
        if self.is_dirty() and not self.save():
            return None
        try:
            assistant = make()
        except AssistantError as exc:
            self._say(str(exc), "error")
            return None
        self.reload(select=assistant.id)
        self.name_edit.setFocus()
        self.name_edit.selectAll()
        self._say(self.tr("Added."), "ok")
        self.sig_assistants_changed.emit()
        return assistant

    def delete(self) -> bool:
        """Deletes the selected user assistant (conversations started from it keep their settings)."""
        if self._current is None or self._current.builtin:
            return False
        try:
            self.library.delete(self._current.id)
        except AssistantError as exc:
            self._say(str(exc), "error")
            return False
        self._current, self._dirty = None, False
        self.reload()
        self._say(self.tr("Deleted. Conversations started from it keep its settings."), "ok")
        self.sig_assistants_changed.emit()
        return True

    def _rename_item(self, assistant: Assistant) -> None:
        item = self.list.currentItem()
        if item is not None and item.data(ASSISTANT_ID_ROLE) == assistant.id:
            item.setText(assistant.name)

    def _say(self, text: str, kind: str) -> None:
        self.status.setText(text)
        set_kind(self.status, kind)
