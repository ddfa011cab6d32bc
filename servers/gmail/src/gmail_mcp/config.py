"""Settings from the environment (interface.md §4); flags on the command line override them."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field
from pathlib import Path

from gmail_mcp.guard.audit import DEFAULT_PATH as DEFAULT_AUDIT_LOG

DEFAULT_API_ENDPOINT = "https://gmail.googleapis.com/"
LEGACY_TOKEN_FILE = "~/.config/gmail-mcp/token.json"  # version 1's one token, used as `default` when alone


class ConfirmMode(enum.StrEnum):
    """What the person confirms (`guard.gate`); a setting of its own here, so that reading the settings
    does not import the send guard and the Gmail client behind it."""

    NEW_RECIPIENTS = "new-recipients"
    ALWAYS = "always"
    NEVER = "never"


def _path(name: str, default: str) -> Path:
    return Path(os.environ.get(name) or default).expanduser()


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Settings:
    credentials_file: Path
    token_file: Path  # the `default` account's token (see `default_token_file`)
    api_endpoint: str
    download_dir: Path
    read_only: bool
    timeout_seconds: float = 30.0
    backoff_base_seconds: float = 0.5
    crash_tools: frozenset[str] = field(default_factory=frozenset)
    token_dir: Path | None = None  # every other account's token, `<name>.json`; None: the default account only
    account: str | None = None  # the account a call without `account` means (GMAIL_MCP_ACCOUNT)
    confirm: ConfirmMode = ConfirmMode.NEW_RECIPIENTS  # what the person must confirm (GMAIL_MCP_CONFIRM, --confirm)
    trusted_recipients: str = ""  # GMAIL_MCP_TRUSTED_RECIPIENTS: addresses and @domain entries, comma-separated
    audit_log: Path = field(default_factory=lambda: Path(DEFAULT_AUDIT_LOG).expanduser())

    @classmethod
    def from_env(cls, *, read_only: bool = False, confirm: ConfirmMode | None = None) -> Settings:
        token_dir = _path("GMAIL_MCP_TOKEN_DIR", "~/.config/gmail-mcp/tokens")
        return cls(
            credentials_file=_path("GMAIL_MCP_CREDENTIALS_FILE", "~/.config/gmail-mcp/credentials.json"),
            token_file=default_token_file(token_dir),
            token_dir=token_dir,
            account=os.environ.get("GMAIL_MCP_ACCOUNT", "").strip() or None,
            confirm=confirm or ConfirmMode(os.environ.get("GMAIL_MCP_CONFIRM") or ConfirmMode.NEW_RECIPIENTS),
            trusted_recipients=os.environ.get("GMAIL_MCP_TRUSTED_RECIPIENTS", ""),
            audit_log=_path("GMAIL_MCP_AUDIT_LOG", DEFAULT_AUDIT_LOG),
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


def default_token_file(token_dir: Path) -> Path:
    """The `default` account's token: GMAIL_MCP_TOKEN_FILE when set, else `<token dir>/default.json` —
    unless only version 1's `~/.config/gmail-mcp/token.json` exists, which then stays in use."""
    if os.environ.get("GMAIL_MCP_TOKEN_FILE"):
        return _path("GMAIL_MCP_TOKEN_FILE", "")
    current = token_dir / "default.json"
    legacy = Path(LEGACY_TOKEN_FILE).expanduser()
    return legacy if not current.exists() and legacy.is_file() else current
