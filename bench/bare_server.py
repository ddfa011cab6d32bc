"""A bare MCPServer with no tools, started the same way as ours: the baseline for start-up and memory."""

from mcp.server.mcpserver import MCPServer

if __name__ == "__main__":
    MCPServer("bare").run("stdio")
