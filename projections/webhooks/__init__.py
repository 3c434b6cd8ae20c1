"""Webhooks for integrating apps (Standard Webhooks): the outbox that follows the event log
and writes one delivery per event and subscription (outbox.py), the sender that posts them
in order per subscription with retries (sender.py), and their signatures (signing.py)."""
