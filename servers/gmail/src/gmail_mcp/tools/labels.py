"""Label tools."""

from __future__ import annotations

from mcp_types import ToolAnnotations
from pydantic import BaseModel

from gmail_mcp.models import ToolWarning
from gmail_mcp.reader import MailReader
from gmail_mcp.runtime.server import ContractServer

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)


class Label(BaseModel):
    id: str
    name: str
    type: str
    messages_unread: int | None
    messages_total: int | None


class ListLabelsResult(BaseModel):
    labels: list[Label]
    warnings: list[ToolWarning] = []


def register(server: ContractServer, reader: MailReader) -> None:
    @server.tool(annotations=READ)
    def list_labels() -> ListLabelsResult:
        """List all labels (system and user) with their unread and total message counts."""
        rows, missing = reader.labels_with_counts()
        result = ListLabelsResult.model_validate({"labels": rows})
        if missing:
            result.warnings.append(
                ToolWarning(
                    code="PARTIAL_RESULTS",
                    message=f"counts unavailable for {len(missing)} labels; they are shown without counts",
                    label_ids=missing,
                )
            )
        return result
