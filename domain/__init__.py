"""The domain: the rules engine (`engine/`, pure) and the event-sourced aggregates that
record its decisions (`aggregates/`). `errors.py` is the one exception hierarchy of both."""
