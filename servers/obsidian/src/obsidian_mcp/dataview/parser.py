"""Query text -> `Query`, or a `QueryError` saying what was expected and where."""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Literal

from lark import Lark, Token, Transformer, UnexpectedCharacters, UnexpectedInput, UnexpectedToken, v_args
from lark.exceptions import VisitError
from lark.tree import Meta

from obsidian_mcp.dataview import syntax as s
from obsidian_mcp.dataview.coerce import unescape
from obsidian_mcp.dataview.dates import parse_date
from obsidian_mcp.dataview.durations import parse_duration
from obsidian_mcp.dataview.errors import QueryError
from obsidian_mcp.dataview.grammar import GRAMMAR
from obsidian_mcp.dataview.parse_errors import describe_unexpected
from obsidian_mcp.dataview.static_checks import check_query

# Like Dataview, these words are never field names (reach such a field with row["where"]).
KEYWORDS = {"from": "FROM", "where": "WHERE", "limit": "LIMIT", "flatten": "FLATTEN"}


def _keyword(token: Token) -> Token:
    keyword = KEYWORDS.get(str(token).lower())
    return token if keyword is None else Token.new_borrow_pos(keyword, str(token), token)


@cache
def _parser() -> Lark:
    """Built on first use (building the LALR tables takes tens of milliseconds)."""
    return Lark(
        GRAMMAR,
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=False,
        lexer_callbacks={"NAME": _keyword},
    )


_LAMBDA_PARAMS = re.compile(r"[^\s(),=>]+")
_BOOL_OPS = {"and": "&", "or": "|", "&": "&", "|": "|"}


def _string(token: Token) -> str:
    return unescape(str(token)[1:-1])


def _link_inner(token: Token) -> tuple[str, bool]:
    text = str(token)
    embed = text.startswith("!")
    return text[3 if embed else 2 : -2], embed


@v_args(meta=True)
class _ToSyntax(Transformer[Token, Any]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def _raw(self, meta: Meta) -> str:
        return "".join(line.strip() for line in re.split(r"[\r\n]+", self.text[meta.start_pos : meta.end_pos]))

    # --- query structure ---
    def query(self, meta: Meta, children: list[Any]) -> s.Query:
        kind, show_id, columns = children[0]
        source = next(
            (c for c in children[1:] if not isinstance(c, s.Where | s.Sort | s.GroupBy | s.Flatten | s.Limit)), None
        )
        clauses = tuple(c for c in children[1:] if isinstance(c, s.Where | s.Sort | s.GroupBy | s.Flatten | s.Limit))
        return s.Query(kind, columns, show_id, source, clauses, self.text)

    def table_header(self, meta: Meta, children: list[Any]) -> tuple[str, bool, tuple[s.NamedExpr, ...]]:
        without_id = any(isinstance(c, Token) and c.type == "WITHOUT_ID" for c in children)
        columns = next((c for c in children if isinstance(c, tuple)), ())
        return "table", not without_id, columns

    def list_header(self, meta: Meta, children: list[Any]) -> tuple[str, bool, tuple[s.NamedExpr, ...]]:
        without_id = any(isinstance(c, Token) and c.type == "WITHOUT_ID" for c in children)
        exprs = [c for c in children if not isinstance(c, Token)]
        if not exprs:
            return "list", not without_id, ()
        expr = exprs[0]
        start = expr.pos
        end = meta.end_pos
        name = "".join(line.strip() for line in re.split(r"[\r\n]+", self.text[start:end]))
        return "list", not without_id, (s.NamedExpr(expr, name, start),)

    def task_header(self, meta: Meta, children: list[Any]) -> tuple[str, bool, tuple[s.NamedExpr, ...]]:
        return "task", True, ()

    def calendar_header(self, meta: Meta, children: list[Any]) -> None:
        raise QueryError("CALENDAR queries are not supported; use TABLE, LIST or TASK", meta.start_pos)

    def table_columns(self, meta: Meta, children: list[s.NamedExpr]) -> tuple[s.NamedExpr, ...]:
        return tuple(children)

    def named_expr(self, meta: Meta, children: list[Any]) -> s.NamedExpr:
        expr = children[0]
        if len(children) == 3:
            name = children[2]
            return s.NamedExpr(expr, _string(name) if name.type == "STRING" else str(name), meta.start_pos)
        return s.NamedExpr(expr, self._raw(meta), meta.start_pos)

    def from_clause(self, meta: Meta, children: list[Any]) -> s.Source:
        source: s.Source = children[1]
        return source

    def where_clause(self, meta: Meta, children: list[Any]) -> s.Where:
        return s.Where(children[1], meta.start_pos)

    def sort_clause(self, meta: Meta, children: list[Any]) -> s.Sort:
        return s.Sort(tuple(children[1:]), meta.start_pos)

    def sort_key(self, meta: Meta, children: list[Any]) -> s.SortKey:
        descending = len(children) == 2 and str(children[1]).lower().startswith("desc")
        return s.SortKey(children[0], descending)

    def group_clause(self, meta: Meta, children: list[Any]) -> s.GroupBy:
        return s.GroupBy(children[1], meta.start_pos)

    def flatten_clause(self, meta: Meta, children: list[Any]) -> s.Flatten:
        return s.Flatten(children[1], meta.start_pos)

    def limit_clause(self, meta: Meta, children: list[Any]) -> s.Limit:
        return s.Limit(children[1], meta.start_pos)

    # --- sources ---
    def tag_source(self, meta: Meta, children: list[Token]) -> s.TagSource:
        return s.TagSource(str(children[0]), meta.start_pos)

    def folder_source(self, meta: Meta, children: list[Token]) -> s.FolderSource:
        return s.FolderSource(_string(children[0]), meta.start_pos)

    def incoming_source(self, meta: Meta, children: list[Token]) -> s.LinkSource:
        return s.LinkSource(_link_inner(children[0])[0], False, meta.start_pos)

    def outgoing_source(self, meta: Meta, children: list[Token]) -> s.LinkSource:
        return s.LinkSource(_link_inner(children[1])[0], True, meta.start_pos)

    def csv_source(self, meta: Meta, children: list[Token]) -> None:
        raise QueryError('csv() sources are not supported; query notes by #tag, "folder" or [[link]]', meta.start_pos)

    def negated_source(self, meta: Meta, children: list[Any]) -> s.NegatedSource:
        return s.NegatedSource(children[1], meta.start_pos)

    def source_binop(self, meta: Meta, children: list[Any]) -> s.BinarySource:
        op: Literal["&", "|"] = "&" if _BOOL_OPS[str(children[1]).lower()] == "&" else "|"
        return s.BinarySource(op, children[0], children[2], meta.start_pos)

    # --- expressions ---
    def binop(self, meta: Meta, children: list[Any]) -> s.Binary:
        op = str(children[1])
        return s.Binary(_BOOL_OPS.get(op.lower(), op), children[0], children[2], meta.start_pos)

    def not_op(self, meta: Meta, children: list[Any]) -> s.Unary:
        return s.Unary("!", children[1], meta.start_pos)

    def neg_op(self, meta: Meta, children: list[Any]) -> s.Unary:
        return s.Unary("-", children[1], meta.start_pos)

    def field_access(self, meta: Meta, children: list[Any]) -> s.Index:
        name: Token = children[1]
        return s.Index(children[0], s.Literal_(str(name), name.start_pos or 0), meta.start_pos)

    def index_access(self, meta: Meta, children: list[Any]) -> s.Index:
        return s.Index(children[0], children[1], meta.start_pos)

    def call(self, meta: Meta, children: list[Any]) -> s.Call:
        args: tuple[s.Expr, ...] = children[1] if len(children) > 1 else ()
        return s.Call(children[0], args, meta.start_pos)

    def arguments(self, meta: Meta, children: list[s.Expr]) -> tuple[s.Expr, ...]:
        return tuple(children)

    def lambda_(self, meta: Meta, children: list[Any]) -> s.Lambda:
        params = tuple(_LAMBDA_PARAMS.findall(str(children[0])))
        return s.Lambda(params, children[1], meta.start_pos)

    def number(self, meta: Meta, children: list[Token]) -> s.Literal_:
        text = str(children[0])
        return s.Literal_(float(text) if "." in text else int(text), meta.start_pos)

    def string(self, meta: Meta, children: list[Token]) -> s.Literal_:
        return s.Literal_(_string(children[0]), meta.start_pos)

    def true(self, meta: Meta, children: list[Token]) -> s.Literal_:
        return s.Literal_(True, meta.start_pos)

    def false(self, meta: Meta, children: list[Token]) -> s.Literal_:
        return s.Literal_(False, meta.start_pos)

    def null(self, meta: Meta, children: list[Token]) -> s.Literal_:
        return s.Literal_(None, meta.start_pos)

    def link(self, meta: Meta, children: list[Token]) -> s.LinkLiteral:
        inner, embed = _link_inner(children[0])
        return s.LinkLiteral(inner, embed, meta.start_pos)

    def date_literal(self, meta: Meta, children: list[Token]) -> s.Literal_ | s.DateShorthand:
        inner = str(children[0])[5:-1].strip()
        if not inner[:1].isdigit():
            return s.DateShorthand(inner, meta.start_pos)
        moment = parse_date(inner)
        if moment is None:
            raise QueryError(f"{inner!r} is not a valid date", meta.start_pos + str(children[0]).index(inner))
        return s.Literal_(moment, meta.start_pos)

    def duration_literal(self, meta: Meta, children: list[Token]) -> s.Literal_:
        return s.Literal_(parse_duration(str(children[0])[4:-1]), meta.start_pos)

    def variable(self, meta: Meta, children: list[Token]) -> s.Variable:
        return s.Variable(str(children[0]), meta.start_pos)

    def list_literal(self, meta: Meta, children: list[s.Expr]) -> s.ListExpr:
        return s.ListExpr(tuple(children), meta.start_pos)

    def object_literal(self, meta: Meta, children: list[tuple[str, s.Expr]]) -> s.ObjectExpr:
        return s.ObjectExpr(tuple(children), meta.start_pos)

    def object_item(self, meta: Meta, children: list[Any]) -> tuple[str, s.Expr]:
        key: Token = children[0]
        return (_string(key) if key.type == "STRING" else str(key)), children[1]


def _precheck(text: str) -> None:
    stripped = text.lstrip()
    start = len(text) - len(stripped)
    if not stripped:
        raise QueryError("expected a query type (TABLE, LIST or TASK) but the query is empty", 0)
    if stripped.startswith(("```", "~~~")):
        raise QueryError("pass the query without its ```dataview code fence", start)
    if stripped.startswith(("dv.", "$=", "await ")) or re.match(r"(?:const|let|var)\s", stripped):
        raise QueryError("DataviewJS is not supported; write a DQL query (TABLE, LIST or TASK)", start)
    if stripped.startswith("="):
        raise QueryError("inline queries (= expression) are not supported; write TABLE, LIST or TASK", start)


def parse_query(text: str) -> s.Query:
    """Parse a DQL query and check it uses only supported features (raises `QueryError`)."""
    _precheck(text)
    try:
        tree = _parser().parse(text)
        query: s.Query = _ToSyntax(text).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, QueryError):
            raise exc.orig_exc from None
        raise
    except (UnexpectedToken, UnexpectedCharacters) as exc:
        message, position = describe_unexpected(exc, text)
        raise QueryError(message, position) from None
    except UnexpectedInput as exc:  # pragma: no cover - LALR raises the two above
        raise QueryError("unexpected input", getattr(exc, "pos_in_stream", 0) or 0) from None
    check_query(query)
    return query
