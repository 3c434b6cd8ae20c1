"""Ids both sides of a posting must agree on: `posting_id` is made from the SHA-1 digest
directly, and must stay exactly the UUID version 5 every stored posting was given."""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from hypothesis import given
from hypothesis import strategies as st

from domain.aggregates import posting_id


@given(st.uuids(), st.integers(min_value=1, max_value=10**12), st.integers(0, 10**6))
def test_a_posting_id_is_the_uuid5_of_its_event_and_place(source, version, index):
    """R11.1: an account's entry and the deal's posting name the same posting."""
    made = posting_id(source, version, index)

    assert made == str(uuid5(NAMESPACE_URL, f"/pontoon/postings/{source}:{version}:{index}"))
    assert UUID(made).version == 5


def test_a_stored_posting_id_is_unchanged():
    """One id as recorded in stores written before it was computed this way."""
    source = UUID("12345678-1234-5678-1234-567812345678")

    assert posting_id(source, 7, 1) == "be660e15-dd78-588e-b3b5-2c4f6c9d977d"
