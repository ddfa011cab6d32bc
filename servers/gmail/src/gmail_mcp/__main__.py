from gmail_mcp.cli import main

main()
