"""The log file: a rotating UTF-8 file in the profile's log folder, INFO by default, with every key masked,
plus hooks that log uncaught exceptions (main thread and worker threads) with their traceback."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.keys.redaction import redact
from desktop_copilot.core.words import tr

LOG_FILE_NAME = "desktop-copilot.log"
LEVEL_ENV = "DESKTOP_COPILOT_LOG"
MAX_BYTES = 2 * 1024 * 1024
BACKUP_COUNT = 3
FORMAT = "%(asctime)s %(levelname)-7s [%(process)d] %(name)s: %(message)s"
APP_LOGGER = "desktop_copilot"
"""--debug lowers this logger only: other libraries stay at INFO (the SDK's DEBUG lines carry whole request
bodies, i.e. the user's words; markdown-it's are thousands per reply)."""

log = logging.getLogger(__name__)
_started = time.monotonic()


class RedactingFilter(logging.Filter):
    """Masks keys in a record's message (arguments merged in), exception text and stack, before any handler
    formats it."""

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string: keep what can be shown, masked
            message = f"{record.msg} (arguments could not be formatted)"
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class _RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))  # a last pass over the whole line


class _LogFile(logging.FileHandler):
    """A log file rotated by size, as logging.handlers.RotatingFileHandler does (without importing that module,
    and pickle with it, before the window's first paint)."""

    def __init__(self, path: Path, max_bytes: int, backups: int) -> None:
        super().__init__(path, encoding="utf-8")
        self.max_bytes, self.backups = max_bytes, backups

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if self.stream is not None and self.stream.seek(0, 2) >= self.max_bytes:  # the end: others append too
                self.rotate()
        except Exception:  # noqa: BLE001 - as logging does: a failed rotation never stops the app
            self.handleError(record)
        super().emit(record)

    def rotate(self) -> None:
        """file.log -> file.log.1 -> … -> file.log.N (the oldest dropped), then a fresh file.log."""
        self.stream.close()
        self.stream = None
        base = self.baseFilename
        try:
            for n in range(self.backups - 1, 0, -1):
                if os.path.exists(f"{base}.{n}"):
                    os.replace(f"{base}.{n}", f"{base}.{n + 1}")
            os.replace(base, f"{base}.1")
        except OSError:  # Windows: another process (the window and `ask`) has the file open; keep writing to it
            pass
        self.stream = self._open()


def level_from(debug: bool = False, environ: dict[str, str] | None = None) -> int:
    """DEBUG with --debug, else DESKTOP_COPILOT_LOG (debug, info, warning, error), else INFO."""
    if debug:
        return logging.DEBUG
    name = (os.environ if environ is None else environ).get(LEVEL_ENV, "").strip().upper()
    level = logging.getLevelName(name) if name else logging.INFO
    return level if isinstance(level, int) else logging.INFO


def log_file(paths: AppPaths) -> Path:
    return paths.log_dir / LOG_FILE_NAME


def _installed() -> _LogFile | None:
    return next((h for h in logging.getLogger().handlers if isinstance(h, _LogFile)), None)


def current_log_file() -> Path | None:
    """The file this process logs to, once `configure_logging` has run."""
    handler = _installed()
    return Path(handler.baseFilename) if handler is not None else None


def configure_logging(paths: AppPaths, level: int | None = None) -> Path | None:
    """Send this process's logs to `<log folder>/desktop-copilot.log` (rotated at 2 MB, 3 kept); idempotent.
    `level` None: from DESKTOP_COPILOT_LOG, else INFO. Nothing goes to the terminal. None when the file
    cannot be opened (a read-only profile): the app runs without a log."""
    level = level_from() if level is None else level
    target = log_file(paths)
    root = logging.getLogger()
    handler = _installed()
    if handler is None or Path(handler.baseFilename) != target.absolute():
        if handler is not None:
            root.removeHandler(handler)
            handler.close()
        try:
            paths.log_dir.mkdir(parents=True, exist_ok=True)
            handler = _LogFile(target, MAX_BYTES, BACKUP_COUNT)
        except OSError:
            return None
        handler.setFormatter(_RedactingFormatter(FORMAT))
        handler.addFilter(RedactingFilter())
        root.addHandler(handler)
    handler.setLevel(level)
    root.setLevel(max(level, logging.INFO))
    logging.getLogger(APP_LOGGER).setLevel(level)
    return target


def describe_platform() -> str:
    uname = os.uname() if hasattr(os, "uname") else None
    system = f"{uname.sysname} {uname.release} {uname.machine}" if uname else sys.platform
    return f"Python {sys.version.split()[0]} ({sys.implementation.name}), {system}"


def log_startup(what: str, extra: str = "") -> None:
    from desktop_copilot import __version__

    level = logging.getLevelName(logging.getLogger(APP_LOGGER).getEffectiveLevel())
    log.info("Desktop Copilot %s starting (%s): %s%s; log level %s", __version__, what, describe_platform(),
             f", {extra}" if extra else "", level)


def log_shutdown(what: str, code: int | None) -> None:
    log.info("Desktop Copilot stopping (%s), exit code %s, after %.1f s", what, code, time.monotonic() - _started)


Report = Callable[[BaseException], None]


def install_crash_logging(report: Report | None = None) -> Callable[[], None]:
    """sys.excepthook and threading.excepthook log the traceback, then call `report` (the window's banner)
    or, without one, the previous hook (a terminal command still prints it). Returns an undo function."""
    previous_sys, previous_thread = sys.excepthook, threading.excepthook

    def on_exception(kind, exc, tb) -> None:
        if issubclass(kind, KeyboardInterrupt):
            previous_sys(kind, exc, tb)
            return
        log.error("Uncaught exception", exc_info=(kind, exc, tb))
        if report is None:
            previous_sys(kind, exc, tb)
        else:
            report(exc)

    def on_thread_exception(args: threading.ExceptHookArgs) -> None:
        if issubclass(args.exc_type, SystemExit):
            return
        name = args.thread.name if args.thread is not None else "?"
        log.error("Uncaught exception in thread %s", name, exc_info=(args.exc_type, args.exc_value, args.exc_traceback))
        if report is None:
            previous_thread(args)
        elif args.exc_value is not None:
            report(args.exc_value)

    sys.excepthook, threading.excepthook = on_exception, on_thread_exception

    def undo() -> None:
        sys.excepthook, threading.excepthook = previous_sys, previous_thread

    return undo


def unexpected_error_text(exc: BaseException) -> str:
    """Words for the banner: what went wrong (masked) and where the details are."""
    where = current_log_file()
    detail = redact(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    if where:
        return tr("Something went wrong: {detail}. Details are in the log: {where}").format(detail=detail, where=where)
    return tr("Something went wrong: {detail}.").format(detail=detail)
