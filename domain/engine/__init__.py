"""The rules engine of Pontoon and Shoot Pontoon: pure Python, no I/O, no clock.

Cards, packs and shuffles, hand values, each deal and table as a state machine that
decides commands into facts, settlement into postings, legal actions and verification.
Aggregates (`domain.aggregates`) record its facts as events; see docs/engine.md.
"""
