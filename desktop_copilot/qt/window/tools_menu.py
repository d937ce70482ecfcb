"""The composer's Tools button: every tool source (the built-ins, each MCP server with its tools) with a switch per tool
for this conversation. A conversation offers the tools switched on in Settings until the user (or its assistant) picks
its own set; the set is kept with the conversation."""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtWidgets import QMenu, QToolButton


class ConversationTools(QObject):
    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.button = QToolButton(objectName="toolsButton")
        self.button.setToolTip(self.tr("The tools this conversation offers the model"))
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.menu = QMenu(self.button, objectName="toolsMenu")
        self.button.clicked.connect(self.open)
        window.composer.add_tool_button(self.button)
        window.history.sig_current_changed.connect(lambda _id: self.refresh())
        window.controller.sig_model_changed.connect(self.refresh)
        self.refresh()

    @property
    def conversation(self):
        return self.window.controller.session.conversation

    def available(self) -> list:
        """The tools switched on in Settings, built-ins first, then each MCP server's, as the registry holds them."""
        runtime = self.window.controller.session.runtime
        off = runtime.switched_off()
        tools = [tool for tool in runtime.registry.all() if tool.name not in off]
        return sorted(tools, key=lambda tool: (tool.source.kind != "builtin", tool.source.label.lower()))

    def offered(self) -> set[str]:
        """The names this conversation offers of the available tools."""
        names = {tool.name for tool in self.available()}
        chosen = self.conversation.tools
        return names if chosen is None else names & set(chosen)

    def refresh(self) -> None:
        total = len(self.available())
        offered = len(self.offered())
        self.button.setText(self.tr("Tools {on}/{all}").format(on=offered, all=total) if offered != total
                            else self.tr("Tools"))

    def open(self) -> QMenu:
        """The list, above the button (the composer sits at the bottom of the window)."""
        self.rebuild()
        height = self.menu.sizeHint().height()
        self.menu.popup(self.button.mapToGlobal(QPoint(0, -height - 4)))
        return self.menu

    def rebuild(self) -> None:
        menu = self.menu
        menu.clear()
        tools = self.available()
        if not tools:
            note = menu.addAction(self.tr("No tools are switched on (Settings ▸ Tools)"))
            note.setEnabled(False)
            return
        offered = self.offered()
        menu.addAction(self.tr("Offer all"), lambda: self.choose(None))
        menu.addAction(self.tr("Offer none"), lambda: self.choose(set()))
        source = None
        for tool in tools:
            if tool.source.label != source:
                source = tool.source.label
                menu.addSeparator()
                header = menu.addAction(self.tr("Built-in") if tool.source.kind == "builtin" else source)
                header.setEnabled(False)
            action = menu.addAction(tool.shown_name)
            action.setObjectName(f"tool:{tool.name}")
            action.setCheckable(True)
            action.setChecked(tool.name in offered)
            action.setToolTip(tool.description)
            action.toggled.connect(lambda on, name=tool.name: self.switch(name, on))
        menu.setToolTipsVisible(True)

    def switch(self, name: str, on: bool) -> None:
        chosen = self.offered()
        chosen = chosen | {name} if on else chosen - {name}
        self.choose(chosen)

    def choose(self, names: set[str] | None) -> None:
        """Offer `names` in this conversation (None: whatever Settings switches on), kept with it."""
        conversation = self.conversation
        every = {tool.name for tool in self.available()}
        conversation.tools = None if names is None or names == every else sorted(names)
        store = self.window.controller.session.store
        if store is not None and conversation.messages:
            store.save_conversation(conversation)
        self.refresh()
        self.window.controller.sig_context_changed.emit()  # the meter counts the tools offered
