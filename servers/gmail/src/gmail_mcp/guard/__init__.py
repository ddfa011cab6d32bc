"""The send guard (interface.md §6, "outgoing mail needs the person, not the model").

A mail the server reads can carry instructions; the model may follow them. Nothing here trusts the
model: every recipient of a mail about to leave is checked against what the account itself has
sent to (`known`), and a new one needs the person's own yes, asked through the client (`gate`).
Every change to a mailbox leaves one line in the audit log (`audit`).
"""
