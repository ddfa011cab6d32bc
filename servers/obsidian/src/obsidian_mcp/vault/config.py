"""Reading Obsidian's own settings files in `.obsidian/`: core plugins' and community plugins'.

They are read directly from the vault root because `Vault.resolve` refuses hidden folders to
callers; a file whose real path leaves the vault, a file too large, unreadable, not JSON or not
of the expected shape counts as absent, and the reason is returned so the caller can warn. Never
written.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from obsidian_mcp.vault.storage import read_bytes

CONFIG_FOLDER = ".obsidian"
MAX_CONFIG_BYTES = 256 * 1024


@dataclass(frozen=True)
class ConfigFile:
    """One settings file: `data` as parsed (None when absent or unusable), and `problem`, what
    made it unusable."""

    data: Any
    problem: str | None = None

    @property
    def present(self) -> bool:
        return self.data is not None


def read_json(root: Path, relative: str, label: str) -> ConfigFile:
    """`.obsidian/<relative>` parsed as JSON; `label` names the file in problems ("the daily
    notes settings file")."""
    path = root / CONFIG_FOLDER / relative
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(root):
        return ConfigFile(None, f"{label} leads outside the vault and was ignored")
    try:
        if os.stat(real).st_size > MAX_CONFIG_BYTES:
            return ConfigFile(None, f"{label} is too large and was ignored")
        return ConfigFile(json.loads(read_bytes(real).decode("utf-8")))
    except (FileNotFoundError, NotADirectoryError):
        return ConfigFile(None)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return ConfigFile(None, f"{label} is not readable JSON and was ignored")


def read_object(root: Path, relative: str, label: str) -> ConfigFile:
    """Like `read_json`, for a file that must hold a JSON object."""
    found = read_json(root, relative, label)
    if found.present and not isinstance(found.data, dict):
        return ConfigFile(None, f"{label} is not a JSON object and was ignored")
    return found


def text_setting(data: dict[str, Any], key: str, label: str, problems: list[str]) -> str:
    """`data[key]` stripped, "" when absent or null; a value that is not text is ignored and
    noted in `problems` ("'folder' in <label> is not text and was ignored")."""
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        problems.append(f"'{key}' in {label} is not text and was ignored")
        return ""
    return value.strip()


def community_plugin_enabled(root: Path, plugin_id: str) -> bool | None:
    """Whether `.obsidian/community-plugins.json` (the list of enabled community plugins) names
    `plugin_id`; None when the list is absent or unusable, so nothing is known."""
    found = read_json(root, "community-plugins.json", "the community plugins list")
    if not isinstance(found.data, list):
        return None
    return plugin_id in found.data
