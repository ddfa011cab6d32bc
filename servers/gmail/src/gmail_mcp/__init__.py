"""gmail-mcp, read top-down: each step imports only the steps above it.

1. `models` — the ADR-0008 taxonomy (shared byte for byte with obsidian-mcp).
2. `errors` — the one mapping from domain failures (the classes of `api/errors`, `mail/errors`) to the
   contract; `warnings` — every warning a success may carry.
3. The domain. `api/` talks to Gmail (`access`: read-only mode and scopes; `client`: retried,
   one-shot and batch execution, `BatchOutcome`; `mailbox`: every request by name); `mail/` is pure
   e-mail handling (parse, compose); `results` is the typed result of every operation of `labels`,
   `reader`, `organizer`, `sender` and `drafts` (`outgoing` composes, `delivery` sends at most once).
4. `tools/` — thin MCP tool functions returning the domain's results as they are.
5. `server` assembles them; `cli` starts it. `runtime/` is the contract machinery every call goes through.
"""
