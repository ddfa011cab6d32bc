"""Talking to the Gmail API: credentials and scopes, the HTTP client, retries, failure classification,
and every request the server makes (`mailbox.MailboxApi`). Nothing outside this package sees googleapiclient."""
