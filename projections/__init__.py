"""Read models built from the event log, and the runner that keeps them up to date."""
