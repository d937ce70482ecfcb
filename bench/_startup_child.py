"""Child of startup.py: shows a bare QMainWindow or the real app, prints one JSON line when the first frame is painted, exits."""

import sys
import time


def peak_rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    mode, started = sys.argv[1], float(sys.argv[2])
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication([sys.argv[0]])  # the app's gui.main() reuses QApplication.instance()

    class FirstFrame(QObject):
        """On the first Paint of a QMainWindow, wait for the rest of that paint pass, then report and close."""

        seen = False

        def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt name
            if not self.seen and event.type() == QEvent.Type.Paint and isinstance(watched, QMainWindow):
                self.seen = True
                QTimer.singleShot(0, lambda: self.report(watched))
            return False

        def report(self, window) -> None:
            print(
                '{"mode": "%s", "shown_s": %.4f, "cpu_s": %.4f, "peak_rss_mb": %.1f, "anthropic_imported": %s}'
                % (mode, time.time() - started, time.process_time(), peak_rss_mb(),
                   "true" if "anthropic" in sys.modules else "false"),
                flush=True,
            )
            window.close()
            if mode == "bare":
                app.quit()

    first_frame = FirstFrame()
    app.installEventFilter(first_frame)
    if mode == "bare":
        window = QMainWindow()
        window.resize(1100, 820)
        window.show()
        app.exec()
    else:  # the real entry point, as `python -m desktop_copilot` runs it
        from desktop_copilot.app.cli import main as cli_main

        cli_main([])


if __name__ == "__main__":
    main()
