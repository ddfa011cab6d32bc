"""The per-route scope table matches the packaged discovery document, method by method."""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Iterator
from typing import Any

from gmail_emulator.api import ROUTES
from gmail_emulator.auth import ROUTE_SCOPES

DOC: dict[str, Any] = json.loads(
    (importlib.resources.files("googleapiclient") / "discovery_cache/documents/gmail.v1.json").read_text()
)
PERMANENT_DELETE = {"messages.delete", "messages.batchDelete", "threads.delete"}


def _methods(resources: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    for name, resource in resources.items():
        for method_name, method in resource.get("methods", {}).items():
            yield prefix + name + "." + method_name, method
        yield from _methods(resource.get("resources", {}), prefix + name + ".")


METHODS = dict(_methods(DOC["resources"]["users"]["resources"]))
METHODS["profile"] = DOC["resources"]["users"]["methods"]["getProfile"]


def test_every_route_is_a_discovery_method_with_its_scopes() -> None:
    for route in ROUTES:
        method = METHODS[route.name]
        assert method["httpMethod"] == route.method, route.name
        if route.name in PERMANENT_DELETE:
            assert route.name not in ROUTE_SCOPES  # always the emulator's 405
            continue
        assert ROUTE_SCOPES[route.name] == frozenset(method["scopes"]), route.name


def test_path_shapes_match() -> None:
    for route in ROUTES:
        path = "/" + METHODS[route.name]["path"].replace("{userId}", "me")
        for name in ("id", "messageId", "sendAsEmail", "forwardingEmail"):
            path = path.replace("{" + name + "}", "x1")
        assert route.pattern.match(path), (route.name, path)


def test_filters_create_and_delete_need_settings_basic_only() -> None:
    basic = frozenset({"https://www.googleapis.com/auth/gmail.settings.basic"})
    assert ROUTE_SCOPES["settings.filters.create"] == ROUTE_SCOPES["settings.filters.delete"] == basic
