"""Table names: no two open tables share one (decision 143). A table holds its name from
the save that opens it; every table is open, since none is ever closed."""

from __future__ import annotations

from typing import Any

from eventsourcing.application import AggregateNotFoundError

from application.base import LedgerBase
from domain.aggregates import TableAggregate, TableName, table_name_id
from domain.errors import NotNow


class TableNames(LedgerBase):
    def _name_is_free(self, name: str) -> None:
        """The name is held by the table opened under it, in the same save, so of two
        tables opened at once under one name the second loses the race, decides again and
        is refused here, naming the first."""
        held = self._holder(name)
        if held is not None:
            raise NotNow(f"a table named “{held.name}” is open already ({held.table_id}): "
                         "choose another name, or play at that table")

    def _holder(self, name: str) -> Any:
        try:
            return self.repository.get(table_name_id(name))
        except AggregateNotFoundError:
            return None

    def reserve_table_names(self) -> int:
        """Tables opened before names were held (an older store) take theirs, the first
        opened of any two that share one; `pontoon migrate` runs it, and it is idempotent.
        Returns the names reserved now."""
        topic = getattr(TableAggregate.TableOpened, "TOPIC")  # noqa: B009 (`pinned` sets it)
        reserved, start = 0, 1
        while page := self.recorder.select_notifications(start=start, limit=500,
                                                         topics=[topic]):
            for notification in page:
                opened: Any = self.mapper.to_domain_event(notification)
                name = opened.fact["name"]
                if self._holder(name) is None:
                    self.save(TableName.reserve(name, str(opened.originator_id)))
                    reserved += 1
            start = page[-1].id + 1
        return reserved
