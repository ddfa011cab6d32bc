"""Gmail filters (users.settings.filters): listed with label names, created and deleted.

A filter made here only labels, marks read or archives: it never forwards (an agent must never set up
mail leaving the account), so no request built here carries `forward`. A forward set up elsewhere is
shown as it is. Creating and deleting need the gmail.settings.basic scope (`can_manage_filters`);
a token without it is refused before any request. Gmail has no filter update: delete and create again.
"""

from __future__ import annotations

from dataclasses import astuple
from typing import Any, Literal

from gmail_mcp.api import views
from gmail_mcp.api.access import can_manage_filters
from gmail_mcp.api.errors import ApiConflict, AuthRequired
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.guard.gate import NOBODY, Gate, Person
from gmail_mcp.labels import SYSTEM_LABEL_IDS, LabelDirectory
from gmail_mcp.mail.errors import InvalidField
from gmail_mcp.results import Filter, FilterAction, FilterCriteria, FilterList, ManagedFilter

FilterVerb = Literal["create", "delete"]
# FilterCriteria's text fields (ours and Gmail's view of them have the same names).
_TEXT = ("from_", "to", "subject", "query", "negated_query")
FIXED_LABELS = frozenset({"SENT", "DRAFT"})  # a filter may neither add nor remove these; nor add SPAM


class FilterBook:
    def __init__(self, mailbox: MailboxApi, labels: LabelDirectory, gate: Gate) -> None:
        self.mailbox = mailbox
        self.labels = labels
        self.gate = gate

    def listing(self) -> FilterList:
        """Every filter, its labels by name (an id no label has any more is shown as it is)."""
        listed = self.mailbox.list_filters()
        names = self.labels.names() if listed else {}
        return FilterList(filters=[_filter(item, names) for item in listed])

    def manage(
        self,
        verb: FilterVerb,
        criteria: FilterCriteria | None,
        add: list[str],
        remove: list[str],
        mark_read: bool,
        archive: bool,
        filter_id: str | None,
        person: Person = NOBODY,
    ) -> ManagedFilter:
        """`create` a filter from criteria and effects (asked of the person first), or `delete` the filter
        `filter_id`."""
        if verb == "delete":
            if filter_id is None:
                raise InvalidField("filter_id", "missing", "delete needs filter_id (from list_filters)")
            return self.delete(filter_id)
        if filter_id is not None:
            raise InvalidField("filter_id", "create_only", "create makes a new filter: leave filter_id out")
        return self.create(criteria, add, remove, mark_read, archive, person)

    def create(
        self,
        criteria: FilterCriteria | None,
        add: list[str],
        remove: list[str],
        mark_read: bool,
        archive: bool,
        person: Person = NOBODY,
    ) -> ManagedFilter:
        """A filter that labels, marks read and/or archives what matches `criteria`; an identical one is ApiConflict."""
        wanted = _criteria(criteria)
        if not add and not remove and not mark_read and not archive:
            raise InvalidField("action_labels", "missing", "give action_labels, mark_read or archive")
        self._require_scope()
        add_ids, remove_ids = self.labels.resolve(add), self.labels.resolve(remove)
        _check_labels(add_ids, remove_ids)
        remove_ids += [i for i, wanted in (("UNREAD", mark_read), ("INBOX", archive)) if wanted and i not in remove_ids]
        action = views.FilterAction(
            add_label_ids=tuple(dict.fromkeys(add_ids)), remove_label_ids=tuple(dict.fromkeys(remove_ids))
        )
        for existing in self.mailbox.list_filters():
            if _same(existing, wanted, action):
                raise ApiConflict("filter", "an identical filter", existing.id)
        self.gate.clear_filter(person, _filter_question(criteria, add, remove, mark_read, archive))
        created = self.mailbox.create_filter(wanted, action)
        return ManagedFilter(filter=_filter(created, self.labels.cached_names()))

    def delete(self, filter_id: str) -> ManagedFilter:
        """Delete a filter (messages it already labelled keep their labels)."""
        self._require_scope()
        self.mailbox.delete_filter(filter_id)
        return ManagedFilter(deleted=filter_id)

    def _require_scope(self) -> None:
        if not can_manage_filters(self.mailbox.client.granted_scopes()):
            raise AuthRequired(
                "insufficient_scope", "creating and deleting filters needs the gmail.settings.basic permission"
            )


def _criteria(criteria: FilterCriteria | None) -> views.FilterCriteria:
    """Gmail's FilterCriteria for ours; at least one criterion, at most one size."""
    body: dict[str, Any] = {}
    if criteria is not None:
        for name in _TEXT:
            value = getattr(criteria, name)
            if value is not None and value.strip():
                body[name] = value.strip()
        if criteria.has_attachment:
            body["has_attachment"] = True
        if criteria.size_larger is not None and criteria.size_smaller is not None:
            raise InvalidField("criteria.size_smaller", "conflict", "give size_larger or size_smaller, not both")
        for comparison, size in (("larger", criteria.size_larger), ("smaller", criteria.size_smaller)):
            if size is not None:
                if size < 1:
                    raise InvalidField(f"criteria.size_{comparison}", "out_of_range", "a size is at least 1 byte")
                body["size"], body["size_comparison"] = size, comparison
    if not body:
        raise InvalidField("criteria", "missing", "criteria: give at least one of from, to, subject, query, ...")
    return views.FilterCriteria(**body)


def _check_labels(add: list[str], remove: list[str]) -> None:
    """Gmail's rules for a filter's labels, checked before asking: so the error names the argument."""
    both = sorted(set(add) & set(remove))
    if both:
        raise InvalidField("action_labels.remove", "conflict", f"labels both added and removed: {', '.join(both)}")
    fixed = sorted(FIXED_LABELS & set(add + remove))
    if fixed:
        raise InvalidField("action_labels", "fixed_label", f"a filter cannot add or remove {', '.join(fixed)}")
    if "SPAM" in add:
        raise InvalidField("action_labels.add", "fixed_label", "a filter cannot send messages to Spam")
    if len([i for i in dict.fromkeys(add) if i not in SYSTEM_LABEL_IDS]) > 1:
        raise InvalidField("action_labels.add", "too_many", "a filter can add at most one label of your own")


def _same(existing: views.Filter, criteria: views.FilterCriteria, action: views.FilterAction) -> bool:
    """Whether a listed filter does what is asked: same criteria (text in any case and spacing), same labels."""

    def folded(given: views.FilterCriteria) -> tuple[object, ...]:
        return tuple(" ".join(v.split()).casefold() if isinstance(v, str) else v for v in astuple(given))

    found = existing.action
    return (
        folded(existing.criteria) == folded(criteria)
        and set(found.add_label_ids) == set(action.add_label_ids)
        and set(found.remove_label_ids) == set(action.remove_label_ids)
        and not found.forward
    )


def _filter(item: views.Filter, names: dict[str, str]) -> Filter:
    """Ours for Gmail's Filter resource: criteria in snake case, labels by name, UNREAD/INBOX as flags."""
    raw = item.criteria
    criteria: dict[str, Any] = {name: getattr(raw, name) for name in _TEXT if getattr(raw, name) is not None}
    if raw.has_attachment:
        criteria["has_attachment"] = True
    if raw.size is not None and raw.size_comparison in ("larger", "smaller"):
        criteria[f"size_{raw.size_comparison}"] = raw.size
    remove = item.action.remove_label_ids
    return Filter(
        id=item.id,
        criteria=FilterCriteria(**criteria),
        action=FilterAction(
            add=[names.get(i, i) for i in item.action.add_label_ids],
            remove=[names.get(i, i) for i in remove if i not in ("UNREAD", "INBOX")],
            mark_read="UNREAD" in remove,
            archive="INBOX" in remove,
            forward=item.action.forward or None,
        ),
    )


def _filter_question(
    criteria: FilterCriteria | None, add: list[str], remove: list[str], mark_read: bool, archive: bool
) -> str:
    """The question for a new filter: its criteria and actions in words."""
    given = criteria.model_dump(exclude_none=True) if criteria is not None else {}
    matching = "; ".join(f"{_WORDS.get(key, key)} {value!r}" for key, value in given.items()) or "every message"
    actions = [f"{verb} the labels {', '.join(names)}" for verb, names in (("add", add), ("remove", remove)) if names]
    actions += [
        words for words, wanted in (("mark it read", mark_read), ("archive it (skip the inbox)", archive)) if wanted
    ]
    return f"Create a Gmail filter? For every new message matching: {matching}.\nIt will: {'; '.join(actions)}."


_WORDS = {
    "from_": "from",
    "negated_query": "not matching",
    "has_attachment": "has an attachment:",
    "size_larger": "larger than (bytes)",
    "size_smaller": "smaller than (bytes)",
}
