"""`pontoon verify`: the checks of a whole store against its own log (docs/architecture.md,
"Tamper evidence"). A room of its own: it reads the event log, the hash chains, the
snapshots and every read model, and re-decides every deal by the rules; it writes
nothing. It stands on the read side's log pages and decoding (projections/) and the
domain, never on the application."""
