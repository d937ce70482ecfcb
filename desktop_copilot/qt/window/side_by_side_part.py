"""Ask several models in the main window: the composer's button opens the chooser, the chosen models answer at once,
their answers stream in columns under the question, and picking one puts it in the transcript."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

if TYPE_CHECKING:  # built at the first turn or the first click: an idle window holds neither
    from desktop_copilot.core.side_by_side import ModelChoice
    from desktop_copilot.qt.side_by_side.choose_models import ChooseModelsDialog
    from desktop_copilot.qt.side_by_side.columns import AnswerColumns


class SideBySideUi(QObject):
    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.runs = window.controller.side_by_side
        self._columns: AnswerColumns | None = None
        self.dialog: ChooseModelsDialog | None = None
        window.composer.sig_ask_several.connect(self.choose)
        self.runs.sig_changed.connect(self._turn_changed)

    @property
    def columns(self) -> AnswerColumns:
        """The answers' columns under the transcript, made the first time a turn shows."""
        if self._columns is None:
            from desktop_copilot.core.usage.totals import conversation_totals
            from desktop_copilot.qt.side_by_side.columns import AnswerColumns
            from desktop_copilot.qt.window.usage_display import format_usage, prices_of

            window, controller = self.window, self.window.controller

            def usage_text(messages) -> str:
                return format_usage(conversation_totals(messages, prices_of(controller.session.runtime)))

            columns = AnswerColumns(controller.provider_label, usage_text, window)
            layout = window.view.parentWidget().layout()
            layout.insertWidget(layout.indexOf(window.view) + 1, columns, 2)
            self.runs.sig_column_event.connect(columns.on_event)
            controller.sig_busy_changed.connect(lambda _busy: columns.refresh())
            columns.sig_stop.connect(self.runs.stop)
            columns.sig_pick.connect(self.pick)
            columns.sig_tool_decision.connect(controller.decide)
            self._columns = columns
        return self._columns

    def entries(self) -> list[tuple[str, ModelChoice]]:
        """Every model of every provider that can answer now (its key is there, or it needs none), as the model
        picker lists them."""
        from desktop_copilot.core.side_by_side import ModelChoice

        states = self.window.model_picker.provider_states()
        return [(state.spec.label, ModelChoice(state.spec.id, model)) for state in states
                if state.has_key for model in state.models]

    def last_choices(self) -> list[ModelChoice]:
        from desktop_copilot.core.side_by_side import ModelChoice

        settings = self.window.controller.session.runtime.settings
        chosen = []
        for text in settings.side_by_side_models if settings is not None else []:
            try:
                chosen.append(ModelChoice.parse(text))
            except ValueError:
                continue
        if not chosen:  # the conversation's own model, to start from
            chosen = [ModelChoice(self.window.controller.provider_id, self.window.controller.model_name)]
        return chosen

    def choose(self, text: str) -> None:
        """Ask which models answer `text` (window-modal: replies elsewhere go on), once the keys present are known
        (read off the GUI thread); Ask sends it to them."""
        if self.dialog is not None:
            self.dialog.raise_()
            return
        self.window.model_picker.tasks.start(self._open_chooser(text))

    async def _open_chooser(self, text: str) -> None:
        from desktop_copilot.qt.side_by_side.choose_models import ChooseModelsDialog

        await self.window.model_picker.check_keys()
        if self.dialog is not None:
            return
        dialog = ChooseModelsDialog(self.entries(), self.last_choices(), self.window)
        self.dialog = dialog

        def finished(result: int) -> None:
            self.dialog = None
            dialog.deleteLater()
            if result == ChooseModelsDialog.DialogCode.Accepted:
                self.ask(text, dialog.choices())

        dialog.finished.connect(finished)
        dialog.open()

    def ask(self, text: str, choices: list[ModelChoice]) -> bool:
        window = self.window
        if window.edits.editing is not None:
            window.banner.show_error(self.tr("Finish or cancel the edit first, then ask several models."))
            return False
        window.banner.dismiss()
        self._remember(choices)
        if not self.runs.ask(text, choices, window.composer.attachments()):
            return False
        window.view.follow()
        return True

    def pick(self, index: int) -> bool:
        if not self.runs.pick(index):
            return False
        self.window.versions.refresh()
        self.window.view.follow()
        self.window.composer.focus()
        return True

    def _remember(self, choices: list[ModelChoice]) -> None:
        from desktop_copilot.core.config.settings import SettingsError

        runtime = self.window.controller.session.runtime
        if runtime.settings is None or runtime.settings_file is None:
            return
        updated = runtime.settings.model_copy(update={"side_by_side_models": [str(c) for c in choices]})
        try:
            runtime.settings_file.save(updated)
        except (SettingsError, OSError):
            return  # offered again only in this session
        runtime.settings = updated

    def _turn_changed(self) -> None:
        turn = self.runs.shown
        if turn is None and self._columns is None:
            return
        self.columns.show_turn(turn)
        layout = self.window.view.parentWidget().layout()
        layout.setStretchFactor(self.window.view, 1)
        self.window.versions.refresh()
