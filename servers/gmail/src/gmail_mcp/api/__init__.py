"""Talking to the Gmail API: credentials, the HTTP client, retries and failure classification."""
