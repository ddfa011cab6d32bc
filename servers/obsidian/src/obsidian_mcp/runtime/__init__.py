"""The machinery that keeps the contract on every call: the wire form of results, the JSON log
line, the one call path (`ContractServer`), SIGTERM handling and the guarded stdio transport.

Duplicated on purpose, byte for byte, in gmail-mcp and obsidian-mcp, like `models.py`: the two
servers are independent packages that share no code (spec.md, "Deliberate duplicates").
"""
