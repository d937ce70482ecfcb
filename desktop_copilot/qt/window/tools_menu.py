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
        window.controller.sig_busy_changed.connect(lambda _busy: self._follow_servers())  # a send starts them
        self._following = False
        self._follow_servers()
        self.refresh()

    def _follow_servers(self) -> None:
        """Once the MCP servers are started, the button and the open list follow their tools as they come and go."""
        runtime = self.window.controller.session.runtime
        if self._following or runtime.mcp is None:
            return
        from desktop_copilot.qt.common.change_relay import ChangeRelay

        self._following = True
        relay = ChangeRelay(self, self._servers_changed)
        runtime.mcp.subscribe(relay.listener())

    def _servers_changed(self) -> None:
        self.refresh()
        if self.menu.isVisible():
            self.rebuild()

    @property
    def conversation(self):
        return self.window.controller.session.conversation

    def available(self) -> list:
        """The tools a run can offer: switched on in Settings, with the workspace folder or knowledge source they need and their keys (as
        far as the model picker has learned which keys are there); built-ins first, then each MCP server's."""
        from desktop_copilot.core.tools.base import can_run_here

        runtime = self.window.controller.session.runtime
        off, workspace, knowledge = runtime.switched_off(), runtime.workspace(), runtime.has_knowledge()
        has_key = self.window.model_picker.has_key
        tools = [tool for tool in runtime.registry.all() if tool.name not in off
                 and can_run_here(tool, workspace=workspace, knowledge=knowledge)
                 and all(has_key.get(key, True) for key in tool.required_keys)]
        return sorted(tools, key=lambda tool: (tool.source.kind != "builtin", tool.source.label.lower()))

    def offered(self) -> set[str]:
        """The names this conversation offers of the available tools."""
        names = {tool.name for tool in self.available()}
        chosen = self.conversation.tools
        return names if chosen is None else names & set(chosen)

    def refresh(self) -> None:
        """The button's count: "Tools" while the conversation offers what Settings switches on (the tools are not even
        loaded for that: an idle window holds none), "Tools 6/7" with a set of its own."""
        if self.conversation.tools is None:
            self.button.setText(self.tr("Tools"))
            return
        total = len(self.available())
        offered = len(self.offered())
        self.button.setText(self.tr("Tools {on}/{all}").format(on=offered, all=total) if offered != total
                            else self.tr("Tools"))

    def open(self) -> QMenu:
        """The list, above the button (the composer sits at the bottom of the window). Opening it starts the MCP
        servers, as Settings does, so their tools join the list as they are ready."""
        from desktop_copilot.qt.settings.entry import start_mcp_servers

        start_mcp_servers(self.window)
        self._follow_servers()
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
