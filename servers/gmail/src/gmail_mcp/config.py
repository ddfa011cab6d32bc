"""Settings from the environment (interface.md §4); flags on the command line override them."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_API_ENDPOINT = "https://gmail.googleapis.com/"


def _path(name: str, default: str) -> Path:
    return Path(os.environ.get(name) or default).expanduser()


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Settings:
    credentials_file: Path
    token_file: Path
    api_endpoint: str
    download_dir: Path
    read_only: bool
    timeout_seconds: float = 30.0
    backoff_base_seconds: float = 0.5
    crash_tools: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_env(cls, *, read_only: bool = False) -> Settings:
        return cls(
            credentials_file=_path("GMAIL_MCP_CREDENTIALS_FILE", "~/.config/gmail-mcp/credentials.json"),
            token_file=_path("GMAIL_MCP_TOKEN_FILE", "~/.config/gmail-mcp/token.json"),
            api_endpoint=os.environ.get("GMAIL_MCP_API_ENDPOINT") or DEFAULT_API_ENDPOINT,
            download_dir=_path("GMAIL_MCP_DOWNLOAD_DIR", "~/Downloads/gmail-mcp"),
            read_only=read_only or _flag("GMAIL_MCP_READ_ONLY"),
            timeout_seconds=float(os.environ.get("GMAIL_MCP_TIMEOUT_SECONDS") or 30),
            backoff_base_seconds=float(os.environ.get("GMAIL_MCP_BACKOFF_SECONDS") or 0.5),
            # Test-only: tools named here raise an unexpected exception, so internal_error is testable.
            crash_tools=frozenset(
                t.strip() for t in os.environ.get("GMAIL_MCP_CRASH_TOOLS", "").split(",") if t.strip()
            ),
        )
