"""The shell's log messages: structlog, imported at the first message the level lets through."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any


class _Log:
    """structlog's logger, imported at the first message the configured level lets through.

    `threshold` and `setup` (a function that configures structlog) are set by the command line,
    so a command without `-v` never imports structlog; library users get structlog as configured.
    """

    def __init__(self) -> None:
        self.threshold = logging.NOTSET
        self.setup: Callable[[], None] | None = None

    def info(self, event: str, **values: Any) -> None:
        self._emit(logging.INFO, "info", event, values)

    def warning(self, event: str, **values: Any) -> None:
        self._emit(logging.WARNING, "warning", event, values)

    def _emit(self, level: int, method: str, event: str, values: dict[str, Any]) -> None:
        if level >= self.threshold:
            import structlog

            if self.setup is not None:
                setup, self.setup = self.setup, None
                setup()
            getattr(structlog.get_logger(), method)(event, **values)


log = _Log()
