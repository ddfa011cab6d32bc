"""The one error the Dataview engine raises for a query it cannot run."""

from __future__ import annotations


class QueryError(Exception):
    """A query that cannot be parsed or run: bad syntax, an unsupported feature, or a query whose
    every row failed at one step.

    `message` says what was expected (or what is not supported) and `position` is the 0-based
    character offset into the query text where the problem is.
    """

    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} (at position {position})")
        self.message = message
        self.position = position


class EvalError(Exception):
    """A runtime failure of one expression on one row (a type mismatch, a bad regex, ...).

    Internal to the engine: the executor drops the row, records a warning, and turns it into a
    `QueryError` only when every row of a step fails, as Dataview does.
    """
