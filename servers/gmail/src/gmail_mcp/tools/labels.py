"""Label tools."""

from __future__ import annotations

from mcp_types import ToolAnnotations

from gmail_mcp.labels import LabelDirectory
from gmail_mcp.results import ListLabelsResult
from gmail_mcp.runtime.server import ContractServer

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)


def register(server: ContractServer, labels: LabelDirectory) -> None:
    @server.tool(annotations=READ)
    def list_labels() -> ListLabelsResult:
        """List all labels (system and user) with their unread and total message counts."""
        return labels.list_with_counts()
