"""Labels: Gmail's API speaks ids, people speak names. One short-lived cache maps them, for every tool of
one account; creating, renaming and deleting a label keep it right."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from typing import Literal

from gmail_mcp import warnings
from gmail_mcp.api import views
from gmail_mcp.api.errors import ApiConflict, ApiNotFound, SystemLabel
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.mail.errors import InvalidField
from gmail_mcp.results import Label, LabelRef, ListLabelsResult, ManagedLabel

CACHE_SECONDS = 300.0
LabelVerb = Literal["create", "rename", "delete"]
# Gmail's system labels: their ids are their names, and no user label may take one of these names, so
# they resolve without fetching the label list.
SYSTEM_LABEL_IDS = frozenset(
    {
        "INBOX", "SPAM", "TRASH", "UNREAD", "STARRED", "IMPORTANT", "SENT", "DRAFT", "CHAT",
        "CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS", "CATEGORY_UPDATES", "CATEGORY_FORUMS",
    }
)  # fmt: skip
MAX_NAME = 225  # characters of a label name (Gmail's own limit is about this; longer names are refused here)


class LabelDirectory:
    """The mailbox's labels (id → name, and type), fetched when the cache is older than CACHE_SECONDS."""

    def __init__(self, mailbox: MailboxApi) -> None:
        self.mailbox = mailbox
        self._lock = threading.Lock()
        self._names: dict[str, str] = {}
        self._types: dict[str, str] = {}
        self._loaded_at = float("-inf")

    def fresh(self) -> bool:
        with self._lock:
            return time.monotonic() - self._loaded_at < CACHE_SECONDS

    def load(self, listed: Sequence[views.Label]) -> None:
        """Take a `labels.list` answer (fetched here, or riding along in someone else's batch)."""
        names = {label.id: _name(label) for label in listed}
        types = {label.id: label.type or "user" for label in listed}
        with self._lock:
            self._names, self._types, self._loaded_at = names, types, time.monotonic()

    def reload(self) -> tuple[views.Label, ...]:
        """Fetch the label list now, refresh the cache with it, and return it."""
        listed = self.mailbox.list_labels()
        self.load(listed)
        return listed

    def names(self) -> dict[str, str]:
        """id → name, from the cache (fetched first when it is stale)."""
        if not self.fresh():
            self.reload()
        with self._lock:
            return dict(self._names)

    def cached_names(self) -> dict[str, str]:
        """id → name as cached, however old (empty before the first load): never a request."""
        with self._lock:
            return dict(self._names)

    def resolve(self, wanted: Iterable[str]) -> list[str]:
        """Label ids for names (any case) or ids; a miss reloads the list once (it may be newer than the cache).

        System labels (INBOX, UNREAD, ...) resolve without a request. An unknown label → ApiNotFound('label').
        """
        wanted = list(wanted)
        if all(item.upper() in SYSTEM_LABEL_IDS for item in wanted):
            return [item.upper() for item in wanted]
        try:
            return _resolve(self.names(), wanted)
        except ApiNotFound:
            self.reload()
            return _resolve(self.cached_names(), wanted)

    def list_with_counts(self) -> ListLabelsResult:
        """Every label with its counts (labels.list, then one batch of labels.get); also refreshes the cache.

        Labels whose counts could not be fetched are shown without them, named in a PARTIAL_RESULTS warning.
        """
        listed = self.reload()
        counts = self.mailbox.get_labels([item.id for item in listed])
        labels = []
        for item in listed:
            got = counts.succeeded.get(item.id)
            labels.append(
                Label(
                    id=item.id,
                    name=_name(item),
                    type=item.type or "user",
                    messages_unread=got.messages_unread if got is not None else None,
                    messages_total=got.messages_total if got is not None else None,
                )
            )
        labels.sort(key=lambda label: (label.type != "system", label.name.lower()))
        missing = list(counts.failed)
        if not missing:
            return ListLabelsResult(labels=labels)
        notice = f"counts unavailable for {len(missing)} labels; they are shown without counts"
        return ListLabelsResult(labels=labels, warnings=[warnings.partial_results(notice, label_ids=missing)])

    # -- changing labels (one request each; the cache follows) -------------------------------------
    def manage(self, verb: LabelVerb, label: str, new_name: str | None, colors: tuple[str, str] | None) -> ManagedLabel:
        """`create` the label `label`, `rename` (or recolour) it, or `delete` it; arguments another verb
        would use are refused rather than ignored."""
        if verb == "create":
            if new_name is not None:
                raise InvalidField("new_name", "rename_only", "create names the label with label; leave new_name out")
            return self.create(label, colors)
        if verb == "rename":
            return self.rename(label, new_name, colors)
        if new_name is not None or colors is not None:
            raise InvalidField("new_name" if new_name else "colors", "not_for_delete", "delete takes only the label")
        return self.delete(label)

    def create(self, name: str, colors: tuple[str, str] | None) -> ManagedLabel:
        """A new user label; a name already taken (any case) is ApiConflict, a system label's name SystemLabel."""
        name = _checked_name(name, "label")
        self._refuse_taken(name, own_id=None)
        created = self.mailbox.create_label(views.LabelChange(name=name, color=_color(colors)), _blame(colors, "label"))
        label = LabelRef(id=created.id, name=created.name if created.name is not None else name)
        self._learn(label.id, label.name)
        return ManagedLabel(label=label)

    def rename(self, label: str, new_name: str | None, colors: tuple[str, str] | None) -> ManagedLabel:
        """Rename a user label and/or change its colours (labels.patch); system labels are refused (SystemLabel)."""
        if new_name is None and colors is None:
            raise InvalidField("new_name", "missing", "rename needs new_name (or colors to change only the colours)")
        label_id = self._user_label(label)
        name = None
        if new_name is not None:
            name = _checked_name(new_name, "new_name")
            self._refuse_taken(name, own_id=label_id)
        change = views.LabelChange(name=name, color=_color(colors))
        changed = self.mailbox.patch_label(label_id, change, _blame(colors, "new_name"))
        renamed = LabelRef(id=label_id, name=changed.name if changed.name is not None else name or label)
        self._learn(renamed.id, renamed.name)
        return ManagedLabel(label=renamed)

    def delete(self, label: str) -> ManagedLabel:
        """Delete a user label: Gmail takes it off every message and deletes no message. System labels: SystemLabel."""
        label_id = self._user_label(label)
        self.mailbox.delete_label(label_id)
        with self._lock:
            self._names.pop(label_id, None)
            self._types.pop(label_id, None)
        return ManagedLabel(deleted=label_id)

    def _user_label(self, label: str) -> str:
        """The id of a user label named (any case) or given by id; SystemLabel for a system label."""
        [label_id] = self.resolve([label])
        with self._lock:
            kind = self._types.get(label_id, "system" if label_id in SYSTEM_LABEL_IDS else "user")
        if kind == "system":
            raise SystemLabel(label_id)
        return label_id

    def _refuse_taken(self, name: str, own_id: str | None) -> None:
        """Refuse a name another label has (any case), from the list as it is now (fetched when stale)."""
        wanted = name.casefold()
        for label_id, existing in self.names().items():
            if label_id != own_id and existing.casefold() == wanted:
                with self._lock:
                    kind = self._types.get(label_id, "user")
                if kind == "system":
                    raise SystemLabel(label_id)
                raise ApiConflict("label", name, label_id)
        if name.upper() in SYSTEM_LABEL_IDS:
            raise SystemLabel(name.upper())

    def _learn(self, label_id: str, name: str) -> None:
        with self._lock:
            self._names[label_id] = name
            self._types[label_id] = "user"


def _name(label: views.Label) -> str:
    """A label's name; its id when Gmail gave none."""
    return label.name if label.name is not None else label.id


def _resolve(names: dict[str, str], wanted: list[str]) -> list[str]:
    by_name = {name.lower(): label_id for label_id, name in names.items()}
    ids = []
    for item in wanted:
        if item in names:
            ids.append(item)
        elif item.lower() in by_name:
            ids.append(by_name[item.lower()])
        elif item.upper() in SYSTEM_LABEL_IDS:
            ids.append(item.upper())
        else:
            raise ApiNotFound("label", item)
    return ids


def _checked_name(name: str, field: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise InvalidField(field, "invalid_name", f"{field}: a label name is 1 to {MAX_NAME} printable characters")
    return name


def _color(colors: tuple[str, str] | None) -> views.LabelColor | None:
    """The colour of a label request: (text, background) as Gmail's lower-case hex codes."""
    if colors is None:
        return None
    text, background = colors
    return views.LabelColor(text=text.lower(), background=background.lower())


def _blame(colors: tuple[str, str] | None, name_field: str) -> dict[str, str]:
    """What a 400 from Gmail blames: the colours first when given (Gmail allows only its palette), else the name."""
    return {"color": "colors", "name": name_field} if colors else {"name": name_field}
