"""gmail-mcp, read top-down: each step imports only the steps above it.

1. `models` — the ADR-0008 taxonomy (shared byte for byte with obsidian-mcp).
2. `errors` — the one mapping from domain failures (the classes of `api/errors`, `mail/errors`) to the
   contract; `warnings` — every warning a success may carry.
3. The domain. `api/` talks to Gmail (`access`: read-only mode and scopes; `token_folder`: which
   accounts have a token, where; `client`: retried, one-shot and batch execution, `BatchOutcome`;
   `mailbox`: every request by name); `mail/` is pure
   e-mail handling (parse, compose, `forward`: Gmail's signature and forward layout); `results` is the
   typed result of every operation of `labels`, `reader`, `organizer`, `filters`, `sender` and `drafts`
   (`sendas` knows the account's From addresses and signatures, `outgoing` composes, `delivery`
   sends at most once). `accounts` holds one set of these per account and says which a call means.
4. `tools/` — thin MCP tool functions returning the domain's results as they are.
5. `server` assembles them; `cli` starts it. `runtime/` is the contract machinery every call goes through.
"""
