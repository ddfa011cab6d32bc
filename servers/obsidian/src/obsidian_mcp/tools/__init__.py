"""Thin MCP tool functions, one module per tool area: `notes`, `daily`, `search`, `links`, `tags`,
`query` (Dataview), `tasks`.

Each tool returns the domain's typed result as it is; `common` holds the annotations and argument
types they share, `worker` runs index work on a thread while reporting MCP progress.
"""
