"""The machinery that keeps the contract on every call: the wire form of results, the JSON log
line, the one call path (`ContractServer`) and its twin for resources, prompts and completions
(`requests`: failures as JSON-RPC errors carrying the contract object), SIGTERM handling, the guarded
stdio transport, and the HTTP transport (bearer-token guard, token file, uvicorn) with the serving
options.

Duplicated on purpose, byte for byte, in gmail-mcp and obsidian-mcp, like `models.py`: the two
servers are independent packages that share no code (spec.md, "Deliberate duplicates").
"""
