from obsidian_mcp.cli import main

main()
