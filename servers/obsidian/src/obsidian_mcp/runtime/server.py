"""`ContractServer`: the one call path. Every tool call answers in the contract and leaves one log line."""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Protocol, TypeVar

import mcp_types
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from ..models import MCPError, argument_error, contract_error
from .accounting import Accounted, accounted
from .input import InputNeeded
from .lifecycle import InFlight
from .listing import ToolListing
from .requests import ContractRequests
from .stdio import guarded_stdio
from .wire import error_result, success_result

FailureMapper = Callable[[BaseException, str], "MCPError | None"]
"""Maps an anticipated domain failure (and the request id) to its MCPError; None means unexpected."""

log = logging.getLogger("mcp_contract.calls")


class AuditedCall(Protocol):
    """One write call being audited: the runtime sets how it ended."""

    result: dict[str, Any] | None
    error: MCPError | None


class WriteAudit(Protocol):
    """Keeps a record of every call of a write tool (gmail's audit log)."""

    def call(self, tool: str, arguments: dict[str, Any], request_id: str) -> AbstractContextManager[AuditedCall]: ...


_Fn = TypeVar("_Fn", bound=Callable[..., Any])


class InjectedCrash(RuntimeError):
    """Raised for tools named in the test-only *_MCP_CRASH_TOOLS variable, to exercise internal_error."""


class UnknownTools(ValueError):
    """`expose` was given a name that is neither a tool of this server nor a group."""

    def __init__(self, entry: str, known: list[str]) -> None:
        names = ", ".join(known)
        super().__init__(f"--tools: no tool or group is called {entry[:100]!r} (groups: all, read; tools: {names})")


class ContractServer(ContractRequests):
    """MCPServer whose every tool call answers in the contract and leaves one log line.

    Tool bodies raise domain exceptions and never catch them. This is the one place
    that turns any failure, the framework's own included (unknown tool, argument
    validation, a crash), into an MCPError.

    Its tools are registered on demand (`tools_on_demand`): tools/list answers from their
    prebuilt listing (`runtime.listing`), and the first call of a tool registers them all.
    """

    def __init__(
        self,
        *,
        mapper: FailureMapper,
        read_only: bool = False,
        crash_tools: Iterable[str] = (),
        audit: WriteAudit | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.mapper = mapper
        self.audit = audit
        self.read_only = read_only
        self.hidden_tools: frozenset[str] = frozenset()  # left out by `expose`
        self.crash_tools = frozenset(crash_tools)
        self.calls = InFlight()
        self._writers: set[str] = set()  # filled by `tool` from each tool's annotations
        self._register_tools: Callable[[], None] | None = None
        self._registering = threading.Lock()
        self._listing_path: Path | None = None
        self._listing: ToolListing | None = None

    def tools_on_demand(self, register: Callable[[], None], listing: Path) -> None:
        """Let `register()` register every tool of the server (with `tool`) when a call first needs
        one, not now: it imports the tool modules, with the domain they call, and the SDK builds
        pydantic models and JSON schemas of each tool's arguments and result, which cost start-up
        more than anything but the SDK's own import. `listing` is the file `tool_listing` generated
        from those very tools: tools/list, `expose` and read-only mode work from it meanwhile."""
        self._register_tools = register
        self._listing_path = listing

    async def tool_listing(self) -> ToolListing:
        """The listing of every tool as registered (registering them now), whichever mode the server is in."""
        self._registered()
        tools = await super().list_tools()
        for tool in tools:
            tool.input_schema = lean_schema(tool.input_schema, descriptions=True)
            if tool.output_schema is not None:
                tool.output_schema = lean_schema(tool.output_schema, descriptions=False)
            if tool.annotations is not None:
                tool.annotations = lean_annotations(tool.annotations)
            if tool.description:
                tool.description = " ".join(tool.description.split())  # a docstring's indentation says nothing
        listed = tuple(tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools)
        return ToolListing(listed, frozenset(self._writers))

    @property
    def write_tools(self) -> frozenset[str]:
        return self._listed().write_tools

    def _listed(self) -> ToolListing:
        """The prebuilt listing (read once); an empty one for a server given no tools."""
        if self._listing is None:
            path = self._listing_path
            self._listing = ToolListing.read(path) if path is not None else ToolListing((), frozenset())
        return self._listing

    def _registered(self) -> None:
        """Register the tools now, unless done already."""
        with self._registering:
            register, self._register_tools = self._register_tools, None
            if register is not None:
                register()

    def _offered(self) -> set[str]:
        """The tools listed and callable: all but those `expose` left out and, read-only, the write tools."""
        listing = self._listed()
        left_out = self.hidden_tools | (listing.write_tools if self.read_only else frozenset())
        return set(listing.names()) - left_out

    def tool(  # type: ignore[override]
        self,
        name: str | None = None,
        *,
        annotations: mcp_types.ToolAnnotations,
        kept_read_only: bool = False,
        **kwargs: Any,
    ) -> Callable[[_Fn], _Fn]:
        """Register a tool (from `tools_on_demand`'s `register`); its annotations are required and say
        once whether it writes.

        A tool whose `read_only_hint` is not true is a write tool: in read-only mode it is not
        listed, and calling it answers permission_denied (`read_only`). `kept_read_only` keeps
        such a tool in read-only mode, for the few that then do only their reading part.
        """
        register = super().tool(name, annotations=annotations, **kwargs)

        def decorate(fn: _Fn) -> _Fn:
            register(fn)
            if annotations.read_only_hint is not True and not kept_read_only:
                self._writers.add(name or fn.__name__)
            return fn

        return decorate

    def expose(self, names: Iterable[str]) -> None:
        """Offer only the named tools (`--tools`).

        Each entry is a tool name or a group: `read` (the tools annotated readOnlyHint true) or
        `all`. The tools left out are not listed and answer not_found (`resource: tool`), even a
        write tool of a read-only server: not offered at all beats read-only. An entry that names
        nothing raises UnknownTools, before anything is left out.
        """
        listing = self._listed()
        known = set(listing.names())
        groups = {"all": known, "read": listing.readers()}
        wanted: set[str] = set()
        for entry in names:
            if entry not in groups and entry not in known:
                raise UnknownTools(entry, sorted(known))
            wanted |= groups.get(entry, {entry})
        self.hidden_tools = frozenset(known - wanted)

    async def run_stdio_async(self) -> None:
        """Serve stdio behind `guarded_stdio`; on SIGTERM, end once the calls in flight are done."""
        signal.signal(signal.SIGTERM, self.calls.terminate)
        async with guarded_stdio() as (stdin, stdout), stdio_server(stdin, stdout) as (read, write):
            lowlevel = self._lowlevel_server
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    async def list_tools(self) -> list[mcp_types.Tool]:
        """The tools offered, from the prebuilt listing: their schemas lean (`lean_schema`: pydantic's
        generated `title`s repeat the property names and cost agents ~15% of tools/list for nothing)."""
        offered = self._offered()
        tools = [mcp_types.Tool.model_validate(tool) for tool in self._listed().tools if tool["name"] in offered]
        self._started_up()
        return tools

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        self._started_up()
        with (
            accounted(self.calls, "tool call", {"tool": name[:100]}) as call,
            self._audited(name, arguments, call) as audit,
        ):
            try:
                call.error = self._refuse(name, arguments, call)
                if call.error is None:
                    if name in self.crash_tools:
                        raise InjectedCrash(f"crash injected into {name}")
                    result = await super().call_tool(name, arguments, context)
                    if isinstance(result, CallToolResult) and result.structured_content is not None:
                        if audit is not None:
                            audit.result = result.structured_content
                        return success_result(result.structured_content)
                    return result
            except ToolError as exc:
                if isinstance(exc.__cause__, InputNeeded):  # a question for the client: no outcome yet
                    return exc.__cause__.result()
                call.error = self._from_tool_error(exc, call.request_id)
            except Exception as exc:
                call.error = self._unexpected(exc, call.request_id)
            assert call.error is not None  # every path that did not return a success set one
            if audit is not None:
                audit.error = call.error
            return error_result(call.error)

    def _audited(
        self, name: str, arguments: dict[str, Any], call: Accounted
    ) -> AbstractContextManager[AuditedCall | None]:
        """The audit record of a call to a write tool (None for other calls, or without an audit)."""
        if self.audit is None or name not in self.write_tools:
            return nullcontext()
        return self.audit.call(name, arguments, call.request_id)

    def _refuse(self, name: str, arguments: dict[str, Any], call: Accounted) -> MCPError | None:
        """Checks made before the SDK sees the call: stopping, unknown tool, read-only mode, unexpected arguments."""
        if call.refuse_if_stopping():
            return call.error
        request_id = call.request_id
        tool = self._offered_tool(name)
        if tool is None:
            if self.read_only and name in self.write_tools and name not in self.hidden_tools:
                return contract_error(
                    "permission_denied",
                    f"{name} is not available: the server is read-only",
                    request_id,
                    reason="read_only",
                )
            return contract_error(
                "not_found", f"unknown tool: {name[:100]}", request_id, resource="tool", id=name[:100]
            )
        unexpected = sorted(set(arguments) - set(tool.parameters.get("properties", {})))
        if unexpected:
            return contract_error(
                "parse_error",
                f"unexpected argument '{unexpected[0][:100]}'",
                request_id,
                field=unexpected[0][:100],
                reason="unexpected_argument",
            )
        return None

    def _offered_tool(self, name: str) -> Tool | None:
        """The registered tool if it is offered (registering the tools first), else None."""
        if name not in self._offered():
            return None
        self._registered()
        return self._tool_manager.get_tool(name)

    def _from_tool_error(self, exc: ToolError, request_id: str) -> MCPError:
        cause = exc.__cause__
        if isinstance(cause, ValidationError):
            return argument_error(cause, request_id)
        if cause is None:
            return self._unexpected(exc, request_id)
        return self.mapper(cause, request_id) or self._unexpected(cause, request_id)

    @staticmethod
    def _unexpected(exc: BaseException, request_id: str) -> MCPError:
        log.error("unexpected failure", exc_info=(type(exc), exc, exc.__traceback__))
        return contract_error("internal_error", f"internal error (request id {request_id})", request_id)


# What the MCP specification says a client must assume for a hint that is absent.
HINT_DEFAULTS = {"read_only_hint": False, "destructive_hint": True, "idempotent_hint": False, "open_world_hint": True}


def lean_annotations(annotations: mcp_types.ToolAnnotations) -> mcp_types.ToolAnnotations:
    """The annotations minus hints equal to the specification's defaults (they say nothing more)."""
    kept = {
        name: value
        for name, value in annotations.model_dump(exclude_none=True).items()
        if HINT_DEFAULTS.get(name, not value) != value
    }
    return mcp_types.ToolAnnotations(**kept)


def lean_schema(schema: Any, *, descriptions: bool) -> Any:
    """The same JSON schema in fewer characters: agents pay for every one in tools/list.

    Drops pydantic's `title`s (they repeat the property names) and `"default": null` (an optional
    property says as much), writes `anyOf [X, null]` as X with `"type": [T, "null"]`, and, for
    output schemas (`descriptions=False`), drops descriptions: clients validate against them, the
    model never reads them. A property *named* title/description/default maps to a schema, not a
    string or null, so it stays.
    """
    if isinstance(schema, list):
        return [lean_schema(item, descriptions=descriptions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    lean: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "description" and isinstance(value, str) and not descriptions:
            continue
        if key == "default" and value is None:
            continue
        lean[key] = lean_schema(value, descriptions=descriptions)
    merged = _merged_types(lean.get("anyOf"))
    if merged is None:
        return lean
    return {**merged, **{key: value for key, value in lean.items() if key != "anyOf"}}


# Keywords that constrain one JSON type only, so alternatives of different types can share a schema.
_TYPE_KEYWORDS = frozenset(
    {"items", "maxItems", "minItems", "uniqueItems", "pattern", "maxLength", "minLength", "format"}
    | {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
)


def _merged_types(alternatives: Any) -> dict[str, Any] | None:
    """`anyOf` of plain typed schemas (`[string|null]`, `[array|string|null]`) as one schema with a type
    list; None when the alternatives share a type or carry a keyword that is not type-specific."""
    if not isinstance(alternatives, list) or len(alternatives) < 2:
        return None
    types: list[str] = []
    merged: dict[str, Any] = {}
    for alternative in alternatives:
        if not isinstance(alternative, dict) or not isinstance(alternative.get("type"), str):
            return None
        keywords = set(alternative) - {"type"}
        if alternative["type"] in types or not keywords <= _TYPE_KEYWORDS or keywords & set(merged):
            return None
        types.append(alternative["type"])
        merged.update({key: alternative[key] for key in keywords})
    return {**merged, "type": types}
