"""Thin MCP tool functions, one module per tool area."""
