"""The two evaluators of every expression agree on random expressions over random pages.

The engine evaluates WHERE, SORT and GROUP BY over a whole batch of rows (`batch.compile_batch`)
and falls back on the row-by-row closures (`compiler.compile_expr`) when a row fails; TABLE
columns, FLATTEN and lambdas use the closures only. Both are kept (specs/spec.md, "Dataview
queries"), so they must give the same values, of the same types, and fail on the same batches:
here random expressions — fields, members, literals of every type, comparisons, arithmetic,
`and`/`or`/`!`, function calls, lambdas — over random pages (numbers, strings, nulls, booleans,
lists, objects, dates, durations, links, inline fields, tasks), on plain rows and on the shared
rows whose columns the batch evaluator keeps between queries (all of them, and a subset).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date, datetime

import yaml  # type: ignore[import-untyped]
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from obsidian_mcp.dataview import syntax
from obsidian_mcp.dataview.batch import compile_batch
from obsidian_mcp.dataview.columns import SharedRows, subset
from obsidian_mcp.dataview.compiler import compile_expr
from obsidian_mcp.dataview.context import EvalContext
from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.loader import page_from_text, resolve_links
from obsidian_mcp.dataview.page import PageList
from obsidian_mcp.dataview.parser import parse_query
from obsidian_mcp.dataview.records import record_of
from obsidian_mcp.dataview.values import Function, Row, Value

TODAY = date(2024, 5, 1)
FIELDS = ("a", "b", "c", "Due Date")  # "Due Date" is also reached by its alias `due-date`

# -- random pages ---------------------------------------------------------------------------------

SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.5, -1.5, 2.0, 1e9]),
    st.sampled_from(["", "a", "B", "active", "done", "Note 1", "#tag", "x, y", "ünï"]),
    st.sampled_from(["2024-05-01", "2024-04-30T10:30", "3 days", "1h 30m"]),  # read as a date, a duration
    st.sampled_from(["[[Note 1]]", "[[Note 2|two]]", "[[Missing]]", "[[Note 0#Heading]]"]),  # links
    st.dates(date(2024, 4, 1), date(2024, 6, 1)),
)
STRINGS = st.lists(st.sampled_from(["a", "B", "active", "t/sub", "Note 1", "Sub"]), max_size=3)
FRONTMATTER_VALUE = st.one_of(
    SCALAR,
    STRINGS,
    STRINGS,
    st.lists(SCALAR, max_size=3),
    st.dictionaries(st.sampled_from(["x", "y", "a"]), SCALAR, max_size=2),
)
INLINE_VALUE = st.sampled_from(
    ["1", "-2.5", "text", '"quoted, text"', "2024-05-03", "2 hours", "[[Note 2]]", "#t", "true", "", "1, 2, 3"]
)
TASK = st.tuples(st.booleans(), st.sampled_from(["", " 📅 2024-05-02", " [due:: 2024-04-28]", " ⏫", " #t"]))


@st.composite
def vaults(draw: st.DrawFn) -> PageList:
    count = draw(st.integers(1, 8))
    pages = []
    for n in range(count):
        frontmatter = draw(st.dictionaries(st.sampled_from(FIELDS), FRONTMATTER_VALUE, max_size=4))
        if draw(st.booleans()):
            frontmatter["tags"] = draw(st.lists(st.sampled_from(["t", "t/sub", "other"]), max_size=2))
        lines = ["---", yaml.safe_dump(frontmatter, allow_unicode=True, sort_keys=False).rstrip("\n"), "---"]
        if draw(st.booleans()):
            lines.append(f"{draw(st.sampled_from(FIELDS))}:: {draw(INLINE_VALUE)}")  # beside, or over, frontmatter
        if draw(st.booleans()):
            lines.append(f"e:: {draw(INLINE_VALUE)}")
        if draw(st.booleans()):
            lines.append(f"See [[Note {draw(st.integers(0, count))}]].")
        lines.append("## Heading")
        for done, extra in draw(st.lists(TASK, max_size=3)):
            lines.append(f"- [{'x' if done else ' '}] task {n}{extra}")
        stamp = datetime(2024, 4, 1 + n, 12)
        pages.append(page_from_text(f"Note {n}.md", "\n".join(lines) + "\n", ctime=stamp, mtime=stamp))
    return resolve_links(pages)


# -- random expressions ---------------------------------------------------------------------------

FIELD = st.one_of(
    st.sampled_from(["a", "b", "c", "e", "A", "B", "due-date", "file.tags"]),  # fields (exact key or alias)
    st.sampled_from([  # members, `file`, task fields
        "missing", "this", "row", "row.a", "this.a", "a.x", "b.a", "c.y", "a.year", "b.days", "c.a", "a.file.name",
        "e.a", "file.name", "file.path", "file.folder", "file.link", "file.tags", "file.etags", "file.outlinks",
        "file.inlinks", "file.day", "file.mtime", "file.size", "file.tasks", "file.lists", "file.frontmatter",
        "completed", "status", "text", "due", "priority", "tags",
    ]),
)  # fmt: skip
LITERAL = st.sampled_from(
    [
        "0", "1", "-2", "2.5", '""', '"a"', '"active"', '"#tag"', "null", "true", "false",
        "date(2024-05-01)", "date(today)", "date(now)", "dur(3 days)", "dur(1 hour)",
        "[[Note 1]]", "[[Note 0]]", "[[Missing]]", '[1, "a", null]', "[]", '{x: 1, y: "a"}',
    ]
)  # fmt: skip
LEAF = st.one_of(FIELD, FIELD, LITERAL)
NEEDLE = st.sampled_from(['"a"', '"t"', '"#t"', '""', '"Note"', '"ct"', '"sub"'])
COMPARISON = st.sampled_from(["=", "!=", "<", "<=", ">", ">="])
ARITHMETIC = st.sampled_from(["+", "-", "*", "/", "%"])
UNARY_CALLS = st.sampled_from(
    [
        "length", "lower", "upper", "typeof", "string", "number", "round", "sum", "min", "max", "nonnull",
        "reverse", "sort", "flat", "unique", "join", "striptime", "date", "dur", "link", "list", "any", "all",
    ]
)  # fmt: skip
BINARY_CALLS = st.sampled_from(["contains", "icontains", "econtains", "default", "startswith", "split", "choice"])


def expressions() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.builds(lambda x, op, y: f"({x} {op} {y})", inner, COMPARISON, inner),
            st.builds(lambda x, op, y: f"({x} {op} {y})", inner, COMPARISON, LEAF),  # against a constant
            st.builds(lambda x, op, y: f"({x} {op} {y})", inner, ARITHMETIC, inner),
            st.builds(lambda parts, op: "(" + f" {op} ".join(parts) + ")", st.lists(inner, min_size=2, max_size=4),
                      st.sampled_from(["AND", "OR", "and", "or"])),
            st.builds(lambda x: f"!{x}", inner),
            st.builds(lambda x: f"-{x}", inner),
            st.builds(lambda f, x: f"{f}({x})", UNARY_CALLS, inner),
            st.builds(lambda f, x, y: f"{f}({x}, {y})", BINARY_CALLS, inner, inner),
            st.builds(lambda x, needle: f"contains({x}, {needle})", st.one_of(FIELD, inner), NEEDLE),  # batch's own
            st.builds(lambda x, y: f"{x}[{y}]", inner, st.sampled_from(["0", "1", '"x"', '"a"', "-1", "null"])),
            st.builds(lambda x, name: f"{x}.{name}", inner, st.sampled_from(["x", "a", "name", "year", "text"])),
            st.builds(lambda f, x, body: f"{f}({x}, (v) => {body})", st.sampled_from(["filter", "map", "any", "all"]),
                      inner, st.sampled_from(["v", "v > 1", "!v", "v = a", "length(v)", "v.x"])),
        )  # fmt: skip

    return st.recursive(LEAF, extend, max_leaves=8)


def batch_shaped() -> st.SearchStrategy[str]:
    """Expressions made of the nodes the batch evaluator evaluates itself, denser than above."""
    simple = st.one_of(
        FIELD,
        st.builds(lambda x: f"!{x}", FIELD),
        st.builds(lambda x, needle: f"contains({x}, {needle})", FIELD, NEEDLE),
        st.builds(lambda x, op, y: f"{x} {op} {y}", FIELD, COMPARISON, st.one_of(LITERAL, FIELD)),
        st.builds(lambda f, x: f"{f}({x})", UNARY_CALLS, FIELD),
    )
    return st.recursive(
        simple,
        lambda inner: st.one_of(
            st.builds(lambda parts, op: "(" + f" {op} ".join(parts) + ")", st.lists(inner, min_size=2, max_size=3),
                      st.sampled_from(["AND", "OR"])),
            st.builds(lambda x: f"!({x})", inner),
        ),
        max_leaves=4,
    )  # fmt: skip


# -- the comparison -------------------------------------------------------------------------------


def same(a: Value, b: Value) -> bool:
    """Equal values of the same types, all the way down (NaN equals NaN; functions by type)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    if isinstance(a, Function):
        return True
    return bool(a == b)


def all_same(a: Sequence[Value], b: Sequence[Value]) -> bool:
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))


def context(pages: PageList) -> EvalContext:
    return EvalContext(pages=pages, resolver=pages.resolver(), origin="Note 0.md", today=TODAY)


FAILS = "fails"  # what a batch that raises `EvalError` gives here, and a row that does


def row_by_row(expr: syntax.Expr, rows: Sequence[Row], pages: PageList) -> list[Value]:
    """Each row's value, or `FAILS` for a row whose evaluation raised `EvalError`."""
    compiled, ctx = compile_expr(expr), context(pages)
    values: list[Value] = []
    for row in rows:
        try:
            values.append(compiled(row, ctx))
        except EvalError:
            values.append(FAILS)
    return values


def batched(expr: syntax.Expr, rows: Sequence[Row], pages: PageList) -> list[Value] | str:
    try:
        return compile_batch(expr)(rows, context(pages))
    except EvalError:
        return FAILS


def agree(each: list[Value], got: list[Value] | str) -> bool:
    """A batch agrees with the rows' values when it gives them all, or fails where one fails."""
    if any(value is FAILS for value in each):
        return got == FAILS
    return not isinstance(got, str) and all_same(each, got)


def check(expr_text: str, rows: list[Row], shared: SharedRows, indices: list[int], pages: PageList) -> str:
    """Both evaluators on `rows` one at a time, all at once, and on the shared rows (all of them twice:
    the columns computed and kept, then read from what was kept; and the subset at `indices`)."""
    where = parse_query(f"LIST WHERE {expr_text}").clauses[0]
    assert isinstance(where, syntax.Where)
    expr = where.expr
    each = row_by_row(expr, rows, pages)
    for row, expected in zip(rows, each, strict=True):  # one row at a time: its value, or its failure
        assert agree([expected], batched(expr, [row], pages)), expr_text
    assert agree(each, batched(expr, rows, pages)), expr_text
    assert agree(each, batched(expr, shared, pages)), expr_text
    assert agree(each, batched(expr, shared, pages)), expr_text
    assert agree([each[i] for i in indices], batched(expr, subset(shared, indices), pages)), expr_text
    return "some rows fail" if any(value is FAILS for value in each) else "values" if rows else "no rows"


def rows_of(pages: PageList, tasks: bool) -> list[Row]:
    records = [record_of(page) for page in pages]
    return [row for r in records for row in r.task_rows()] if tasks else [r.row for r in records]


# Every node the batch evaluator evaluates itself, over each common field: checked on every vault.
NODES = [
    expression
    for field in ["a", "b", "A", "due-date", "e", "file.tags", "file.link", "file.name", "a.x", "this.a", "due"]
    for expression in [
        field,
        f"!{field}",
        *(f"contains({field}, {needle})" for needle in ['"a"', '"t"', '"#t"', '"ct"', '""']),
        *(
            f"{field} {op} {constant}"
            for op in ("=", "!=", "<", ">=")
            for constant in ("null", '"a"', "1", "date(today)", "[[Note 1]]", "dur(3 days)")
        ),
        f"{field} = b",
        f"length({field})",
        f"({field} AND b) OR !a",
    ]
]


# No shrinking: each example checks hundreds of expressions (the failing one is in the message).
@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(pages=vaults(), tasks=st.booleans(), data=st.data())
def test_every_batch_node_agrees_with_row_by_row(pages: PageList, tasks: bool, data: st.DataObject) -> None:
    rows = rows_of(pages, tasks)
    indices = data.draw(st.lists(st.integers(0, max(0, len(rows) - 1)), max_size=len(rows)) if rows else st.just([]))
    shared = SharedRows(rows)
    for text in NODES:
        check(text, rows, shared, indices, pages)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pages=vaults(),
    texts=st.lists(st.one_of(expressions(), batch_shaped()), min_size=1, max_size=8),
    tasks=st.booleans(),
    data=st.data(),
)
def test_random_expressions_agree(pages: PageList, texts: list[str], tasks: bool, data: st.DataObject) -> None:
    rows = rows_of(pages, tasks)
    indices = data.draw(st.lists(st.integers(0, max(0, len(rows) - 1)), max_size=len(rows)) if rows else st.just([]))
    shared = SharedRows(rows)  # a whole-vault query's rows, and a FROM's or an `and`'s picked from them
    for text in texts:  # several expressions over one vault: more of them for the time a vault takes
        event(check(text, rows, shared, indices, pages))
