"""Label tools."""

from __future__ import annotations

import functools
from typing import Any

from mcp_types import ToolAnnotations
from pydantic import BaseModel

from gmail_mcp.api.client import GmailClient
from gmail_mcp.api.errors import GmailFailure
from gmail_mcp.models import ContractServer, Warning

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)


class Label(BaseModel):
    id: str
    name: str
    type: str
    messages_unread: int | None
    messages_total: int | None


class ListLabelsResult(BaseModel):
    labels: list[Label]
    warnings: list[Warning] = []


def register(server: ContractServer, client: GmailClient) -> None:
    @server.tool(annotations=READ)
    def list_labels() -> ListLabelsResult:
        """List all labels (system and user) with their unread and total message counts."""
        listed = client.read(lambda users: users.labels().list(userId="me"), "label")
        ids = [str(item["id"]) for item in listed.get("labels", [])]
        details = client.batch([(i, functools.partial(_get_label, label_id=i)) for i in ids], "label")
        labels, missing = [], []
        for item in listed.get("labels", []):
            got = details.get(item["id"])
            if isinstance(got, GmailFailure) or got is None:
                missing.append(item["id"])
                got = {}
            labels.append(
                Label(
                    id=item["id"],
                    name=item.get("name", item["id"]),
                    type=item.get("type", "user"),
                    messages_unread=got.get("messagesUnread"),
                    messages_total=got.get("messagesTotal"),
                )
            )
        labels.sort(key=lambda label: (label.type != "system", label.name.lower()))
        result = ListLabelsResult(labels=labels)
        if missing:
            result.warnings.append(
                Warning(
                    code="PARTIAL_RESULTS",
                    message=f"counts unavailable for {len(missing)} labels; they are shown without counts",
                    label_ids=missing,
                )
            )
        return result


def _get_label(users: Any, label_id: str) -> Any:
    return users.labels().get(userId="me", id=label_id)
