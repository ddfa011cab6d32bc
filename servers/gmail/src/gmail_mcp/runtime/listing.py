"""The tool listing: what tools/list answers for every tool of a server, prebuilt into a JSON file.

Registering a tool costs start-up: the SDK builds pydantic models of its arguments and its result
and their JSON schemas, and the tool's module imports the domain it calls. So `ContractServer`
registers its tools only when a call first needs one (`ContractServer.tools_on_demand`) and answers
tools/list from this file until then and after. `ContractServer.tool_listing()` generates it from
the registered tools themselves (`scripts/tool_listing.py` writes it); a test fails when the file
and the tools disagree by a single character.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ToolListing:
    tools: tuple[dict[str, Any], ...]  # each tool as tools/list sends it, in registration order
    write_tools: frozenset[str]  # the tools that write (see `ContractServer.tool`)

    @classmethod
    def read(cls, path: Path) -> ToolListing:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(tuple(data["tools"]), frozenset(data["write_tools"]))

    def to_json(self) -> str:
        """The file's text: stable, so that regenerating an unchanged listing changes nothing."""
        data = {"tools": list(self.tools), "write_tools": sorted(self.write_tools)}
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

    def names(self) -> list[str]:
        return [tool["name"] for tool in self.tools]

    def readers(self) -> set[str]:
        """The tools annotated readOnlyHint true."""
        return {tool["name"] for tool in self.tools if tool.get("annotations", {}).get("readOnlyHint") is True}
