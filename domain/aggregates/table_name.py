"""A table's name, held by the table opened under it: two open tables never share a name
(decision 143), so a kitty, a report row or a list names one table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from domain.aggregates.base import pinned


def name_key(name: str) -> str:
    """Names that read the same are the same name: any case, any run of spaces."""
    return " ".join(name.casefold().split())


def table_name_id(name: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"/pontoon/table-names/{name_key(name)}")


@pinned
class TableName(Aggregate):
    """Created with the table in the same save: a second table opened under the same name
    finds it (or, racing, fails to save it and decides again) and is refused."""

    if TYPE_CHECKING:
        name: str
        table_id: str

    class Reserved(Aggregate.Created):
        name: str  # as the table that holds it was named
        table_id: str

        def apply(self, held: Any) -> None:
            held.name, held.table_id = self.name, self.table_id

    @classmethod
    def reserve(cls, name: str, table_id: str) -> TableName:
        return cls._create(cls.Reserved, id=table_name_id(name), name=name, table_id=table_id)
