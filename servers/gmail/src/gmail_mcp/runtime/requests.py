"""Resources, prompts and completions through the contract, as `ContractServer.call_tool` serves tools.

`resources/list`, `resources/read`, `prompts/get` and `completion/complete` have no result that could
carry `isError`, so a failure is a JSON-RPC error: its `message` is the MCPError's message and its
`data` the whole MCPError `{error, message, details}`, mapped from the domain's exception by the
server's one mapper (interface.md §5). The JSON-RPC code says what kind of failure it is: -32002 for
a resource that does not exist, -32602 for a prompt's bad arguments (or a prompt that does not
exist), -32603 for anything else. Each request gets its own request id (in `details.request_id`
and its log line) and leaves one log line, counts as a call in flight for SIGTERM, and is refused
as `mcp_unavailable` once the server is stopping. Read-only mode changes nothing here.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

import anyio.to_thread
import mcp_types
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, UnexpectedResourceError
from mcp.server.mcpserver.prompts import Prompt
from mcp.shared.exceptions import MCPError as ProtocolError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, GetPromptResult, InputRequiredResult
from pydantic import AnyUrl, ValidationError

from ..models import MCPError, argument_error, contract_error
from .accounting import accounted
from .lifecycle import InFlight

RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for resources/read of a resource that does not exist

# The JSON-RPC error code of each request's contract errors; any code not named is -32603.
_READ_CODES = {"not_found": RESOURCE_NOT_FOUND}
_PROMPT_CODES = {"not_found": INVALID_PARAMS, "parse_error": INVALID_PARAMS}
_OTHER_CODES = {"parse_error": INVALID_PARAMS}

ResourceLister = Callable[[], Sequence[mcp_types.Resource]]
"""Lists resources of the moment for `resources/list` (e.g. recent notes); runs on a worker thread."""

_T = TypeVar("_T")
_Fn = TypeVar("_Fn", bound=Callable[..., Any])
_VARIABLE = re.compile(r"(\{[A-Za-z_][A-Za-z0-9_]*\})")


class UnknownResource(LookupError):
    """No resource or template of the server matches the URI (or the SDK refused its variables:
    `..`, an absolute path, NUL): a resource that does not exist."""


class UnknownPrompt(LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class PromptArgumentRefused(ValueError):
    """A prompt argument is missing or is not one the prompt declares."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(field)
        self.field = field
        self.reason = reason


class ContractRequests(MCPServer[Any]):
    """The requests besides `tools/call`, answered in the contract. `ContractServer` builds on it and
    provides `mapper` (domain failure → MCPError), `calls` (the calls in flight) and `_unexpected`."""

    mapper: Callable[[BaseException, str], MCPError | None]
    calls: InFlight
    crash_tools: frozenset[str]  # test-only (*_MCP_CRASH_TOOLS): a prompt named there crashes too
    _unexpected: Callable[[BaseException, str], MCPError]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.resource_listers: list[ResourceLister] = []
        self._slash_spanning: list[re.Pattern[str]] = []  # URIs of templates whose last variable takes '/' too
        self._after_start_up: list[Callable[[], None]] = []

    def after_start_up(self, begin: Callable[[], None]) -> None:
        """Call `begin()` once the client's start-up is over: when its first tools/list is answered, or
        at its first other request of this server's own (a tool call, resources, a prompt, a completion),
        whichever comes first. For background work that would slow start-up on shared cores
        (obsidian-mcp: loading the stored vectors and the model)."""
        self._after_start_up.append(begin)

    def _started_up(self) -> None:
        begins, self._after_start_up = self._after_start_up, []
        for begin in begins:
            begin()

    # -- registering --------------------------------------------------------------------------------

    def resource(self, uri: str, *, spans_slashes: bool = False, **kwargs: Any) -> Callable[[_Fn], _Fn]:
        """The SDK's `resource` decorator; `spans_slashes` lets the template's last variable, at its end,
        take the rest of the URI, '/' included: `obsidian://note/{path}` then reads
        `obsidian://note/Projects/Alpha.md`, and `obsidian://{vault}/note/{path}` reads
        `obsidian://work/note/Projects/Alpha.md` (the variables before it stop at '/'). (RFC 6570's
        `{path}` stops at '/': only `Projects%2FAlpha.md` would match; the template keeps the plain form
        clients and people expect.) Templates are tried in the order registered."""
        if spans_slashes:
            pieces = _VARIABLE.split(uri)  # literal, {variable}, literal, ..., literal
            if len(pieces) < 3 or pieces[-1] or any("{" in piece or "}" in piece for piece in pieces[::2]):
                raise ValueError(f"spans_slashes needs plain variables, the last at the end of the template: {uri!r}")
            last = len(pieces) - 2
            pattern = "".join(
                re.escape(piece) if number % 2 == 0 else "(.*)" if number == last else "[^/]+"
                for number, piece in enumerate(pieces)
            )
            self._slash_spanning.append(re.compile(pattern, re.DOTALL))
        return super().resource(uri, **kwargs)

    def resource_list(self, lister: ResourceLister) -> ResourceLister:
        """Register a function whose resources `resources/list` adds to the fixed ones, on each listing."""
        self.resource_listers.append(lister)
        return lister

    def completion(self) -> Callable[[_Fn], _Fn]:
        """The SDK's completion decorator (one handler per server), answering in the contract and logged."""
        register = super().completion()  # type: ignore[no-untyped-call]  # the SDK leaves it unannotated

        def decorate(fn: _Fn) -> _Fn:
            async def complete(
                ref: mcp_types.PromptReference | mcp_types.ResourceTemplateReference,
                argument: mcp_types.CompletionArgument,
                context: mcp_types.CompletionContext | None,
            ) -> mcp_types.Completion | None:
                target = ref.uri if isinstance(ref, mcp_types.ResourceTemplateReference) else ref.name
                fields = {"completion": target[:200], "argument": argument.name[:100]}
                result: mcp_types.Completion | None = await self._served(
                    "completion", fields, lambda: fn(ref, argument, context), _OTHER_CODES
                )
                return result

            register(complete)
            return fn

        return decorate

    # -- serving ------------------------------------------------------------------------------------

    async def list_resources(self) -> list[mcp_types.Resource]:
        fixed = await super().list_resources()
        if not self.resource_listers:
            return fixed

        async def listing() -> list[mcp_types.Resource]:
            found = list(fixed)
            for lister in self.resource_listers:
                found.extend(await anyio.to_thread.run_sync(lister))
            return found

        return await self._served("resource list", {}, listing, _OTHER_CODES)

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        text = str(uri)
        read = super().read_resource

        async def reading() -> Iterable[ReadResourceContents] | InputRequiredResult:
            try:
                return await read(self._spanned(text), context)
            except ResourceNotFoundError:
                raise UnknownResource(text) from None

        return await self._served("resource read", {"uri": text[:200]}, reading, _READ_CODES)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        render = super().get_prompt

        async def rendering() -> GetPromptResult | InputRequiredResult:
            prompt = self._prompt_manager.get_prompt(name)
            if prompt is None:
                raise UnknownPrompt(name)
            _check_arguments(prompt, arguments or {})
            if name in self.crash_tools:
                raise RuntimeError(f"crash injected into the prompt {name}")
            return await render(name, arguments, context)

        return await self._served("prompt", {"prompt": name[:100]}, rendering, _PROMPT_CODES)

    async def _served(
        self, what: str, fields: dict[str, Any], work: Callable[[], Awaitable[_T]], codes: dict[str, int]
    ) -> _T:
        """`work()`'s answer, or a JSON-RPC error carrying the MCPError of its failure; one log line either way."""
        self._started_up()
        with accounted(self.calls, what, fields) as request:
            try:
                if not request.refuse_if_stopping():
                    return await work()
            except ProtocolError:
                raise
            except Exception as exc:
                request.error = self._failure(exc, request.request_id)
            error = request.error
            assert error is not None  # every path that did not return set one
            raise ProtocolError(codes.get(error.error, INTERNAL_ERROR), error.message, error.model_dump(mode="json"))

    def _failure(self, exc: BaseException, request_id: str) -> MCPError:
        cause = _unwrapped(exc)
        match cause:
            case UnknownResource():
                templates = ", ".join(t.uri_template for t in self._resource_manager.list_templates())
                return contract_error(
                    "not_found",
                    f"no resource of this server has this URI (resource templates: {templates or 'none'})",
                    request_id,
                    resource="resource",
                )
            case UnknownPrompt():
                known = ", ".join(sorted(p.name for p in self._prompt_manager.list_prompts()))
                return contract_error(
                    "not_found",
                    f"unknown prompt: {cause.name[:100]} (prompts: {known or 'none'})",
                    request_id,
                    resource="prompt",
                    id=cause.name[:100],
                )
            case PromptArgumentRefused():
                problem = "is missing" if cause.reason == "missing" else "is not an argument of this prompt"
                return contract_error(
                    "parse_error",
                    f"argument '{cause.field}' {problem}",
                    request_id,
                    field=cause.field,
                    reason=cause.reason,
                )
            case ValidationError():
                return argument_error(cause, request_id)
        return self.mapper(cause, request_id) or self._unexpected(cause, request_id)

    def _spanned(self, uri: str) -> str:
        """The URI with '/' encoded inside the last variable of the first slash-spanning template it
        matches, as the SDK's matcher wants it."""
        for pattern in self._slash_spanning:
            found = pattern.fullmatch(uri)
            if found is not None:
                start = found.start(1)
                return uri[:start] + uri[start:].replace("/", "%2F")
        return uri


def _unwrapped(exc: BaseException) -> BaseException:
    """The failure itself, out of the SDK's wrappers: `UnexpectedResourceError` around a resource
    function's exception, and the plain `ValueError`s (two) around a prompt function's."""
    while isinstance(exc, UnexpectedResourceError) or type(exc) is ValueError:
        if exc.__cause__ is None:
            break
        exc = exc.__cause__
    return exc


def _check_arguments(prompt: Prompt, arguments: dict[str, Any]) -> None:
    """Arguments the prompt does not declare, then missing ones, as tools refuse them (`parse_error`)."""
    declared = prompt.arguments or []
    names = {argument.name for argument in declared}
    unexpected = sorted(set(arguments) - names)
    if unexpected:
        raise PromptArgumentRefused(unexpected[0][:100], "unexpected_argument")
    for argument in declared:
        if argument.required and argument.name not in arguments:
            raise PromptArgumentRefused(argument.name, "missing")
