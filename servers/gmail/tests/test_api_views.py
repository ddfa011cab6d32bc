"""api.views parses Gmail's JSON once, tolerantly: whatever an answer holds, a view comes out (a field of the
wrong type absent, an item without its id left out) and nothing raises."""

from __future__ import annotations

from typing import Any

from gmail_mcp.api.views import (
    Draft,
    DraftPage,
    Filter,
    Label,
    MessagePage,
    Profile,
    SendAs,
    Thread,
    message,
)
from hypothesis import given, settings
from hypothesis import strategies as st

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=16,
)
KEYS = ["id", "threadId", "messages", "drafts", "message", "labels", "name", "type", "messagesTotal", "criteria",
        "action", "from", "size", "addLabelIds", "sendAsEmail", "isPrimary", "emailAddress", "nextPageToken",
        "payload", "parts", "raw", "labelIds"]  # fmt: skip
ANSWERS = JSON | st.dictionaries(st.sampled_from(KEYS), JSON, max_size=6)


@settings(max_examples=300, deadline=None)
@given(answer=ANSWERS)
def test_any_answer_parses_into_a_view(answer: Any) -> None:
    message(answer)
    Thread.parse(answer)
    Draft.parse(answer)
    Profile.parse(answer)
    for page in (MessagePage.parse(answer), DraftPage.parse(answer)):
        assert page.next_page_token is None or isinstance(page.next_page_token, str)
    assert all(isinstance(label.id, str) for label in Label.listed(answer))
    for parse in (Label.parse, Filter.parse, SendAs.parse):
        parse(answer)


def test_items_without_their_id_are_left_out_and_wrong_types_are_absent() -> None:
    page = MessagePage.parse({"messages": [{"id": "a"}, {"id": 5}, "b", {"threadId": "t"}], "nextPageToken": 7})
    assert page.ids == ("a",) and page.next_page_token is None
    drafts = DraftPage.parse({"drafts": [{"id": "r1", "message": {"id": "m1"}}, {"message": {"id": "m2"}}]})
    assert [(d.id, d.message.id) for d in drafts.drafts] == [("r1", "m1")]
    assert [label.id for label in Label.listed({"labels": [{"id": "L"}, {"name": "no id"}, None]})] == ["L"]
    assert Label.parse({"messagesTotal": True}, default_id="X") == Label(id="X")
    assert message({"id": "m", "payload": {}, "raw": "not base64!"}).payload is None
    assert message({"id": "m", "raw": "aGk"}).raw == b"hi"
    assert Filter.parse({"id": "f", "criteria": {"from": 3, "hasAttachment": "yes"}}) == Filter(id="f")
    assert SendAs.parse({"sendAsEmail": "a@b.c", "isPrimary": "true"}) == SendAs(email="a@b.c")


def test_a_deep_mime_tree_is_cut_below_what_any_reader_walks() -> None:
    payload: dict[str, Any] = {"mimeType": "text/plain"}
    for _ in range(5000):
        payload = {"mimeType": "multipart/mixed", "parts": [payload]}
    part = message({"id": "deep", "payload": payload}).payload
    depth = 0
    while part is not None and part.parts:
        part, depth = part.parts[0], depth + 1
    assert 33 <= depth <= 64
