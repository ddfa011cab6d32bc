"""Pure e-mail handling: parsing Gmail message resources and composing MIME. Knows nothing of MCP or HTTP.

- `parse`: Gmail API message resources → `MessageSummary` (list view) and `ParsedEmail` (a whole message).
- `compose`: `build_message` → RFC 822 bytes for `users.messages.send`.
- `filenames`: safe local names for attachments.
- `errors`: the anticipated failures (`gmail_mcp.errors` maps them to the contract).
"""
