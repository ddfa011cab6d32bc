"""Functions that dispatch on their arguments' Dataview types, like Dataview's FunctionBuilder:
variants are tried in order (`"*"` matches any type), and a function vectorised at some argument
positions maps itself over a list passed there (`lower(["A", "B"])` is `["a", "b"]`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.values import Value, type_name

if TYPE_CHECKING:
    from obsidian_mcp.dataview.context import EvalContext

Impl = Callable[..., Value]  # (context, *args) -> value
Builtin = Callable[["EvalContext", Sequence[Value]], Value]  # what the evaluator calls


class DataviewFunction:
    def __init__(self, name: str) -> None:
        self.name = name
        self.variants: list[tuple[tuple[str, ...], Impl]] = []
        self.vectorized: dict[int, tuple[int, ...]] = {}
        self.varargs: Impl | None = None
        self._chosen: dict[tuple[type, ...], Impl] = {}  # the variant per argument types, once known

    def on(self, *types: str) -> Callable[[Impl], Impl]:
        """Decorator: register `impl(context, *args)` for arguments of these types."""

        def register(impl: Impl) -> Impl:
            self.variants.append((types, impl))
            return impl

        return register

    def vectorize(self, arity: int, *positions: int) -> DataviewFunction:
        self.vectorized[arity] = positions
        return self

    def any_args(self, impl: Impl) -> Impl:
        """Decorator: the fallback taking any number of arguments of any type."""
        self.varargs = impl
        return impl

    def __call__(self, context: EvalContext, args: Sequence[Value]) -> Value:
        key = tuple(map(type, args))  # which variant applies depends on the argument types alone
        chosen = self._chosen.get(key)
        if chosen is not None:
            return chosen(context, *args)
        types = [type_name(arg) for arg in args]
        lists = {p: arg for p in self.vectorized.get(len(args), ()) if isinstance(arg := args[p], list)}
        if lists:
            length = min(len(items) for items in lists.values())
            return [
                self(context, [lists[p][i] if p in lists else arg for p, arg in enumerate(args)]) for i in range(length)
            ]
        for wanted, impl in self.variants:
            if len(wanted) == len(args) and all(w in ("*", t) for w, t in zip(wanted, types, strict=True)):
                self._chosen[key] = impl
                return impl(context, *args)
        if self.varargs is not None:
            self._chosen[key] = self.varargs
            return self.varargs(context, *args)
        raise EvalError(f"{self.name}() does not take ({', '.join(types)})")
