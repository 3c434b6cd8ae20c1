"""Read models built from the ledger's event log: balances, statements, kitty history,
deal audits, disputes. Commands never read them; they can be dropped and rebuilt."""
