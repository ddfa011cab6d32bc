"""The JSON log line of interface.md §2 on stderr, stamped with the service and the call's request id."""

from __future__ import annotations

import contextvars
import logging
import sys
import threading

from pythonjsonlogger.json import JsonFormatter

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)


class _CallContext(logging.Filter):
    """Stamps every record with the service name and the request id of the call being served."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def filter(self, record: logging.LogRecord) -> bool:
        record.service = self.service
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get()
        return True


def configure_logging(service: str, level: str) -> None:
    """JSON lines on stderr from the root logger. Call before MCPServer() so its own basicConfig is a no-op."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_CallContext(service))
    handler.setFormatter(
        JsonFormatter(
            "{asctime}{levelname}{message}{service}{request_id}",
            style="{",
            rename_fields={"asctime": "timestamp", "levelname": "level", "exc_info": "exception"},
            datefmt="%Y-%m-%dT%H:%M:%S%z",
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # Nothing else may write free text to stderr: Python warnings and crashes become JSON lines too.
    logging.captureWarnings(True)
    fatal = logging.getLogger("mcp_contract.fatal")
    sys.excepthook = lambda kind, exc, tb: fatal.critical("unhandled exception", exc_info=(kind, exc, tb))
    threading.excepthook = lambda args: fatal.critical("unhandled exception in a thread", exc_info=args.exc_value)
