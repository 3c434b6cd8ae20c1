"""The rules of Pontoon and Shoot Pontoon as a pure engine, and (later) the ledger's aggregates."""
