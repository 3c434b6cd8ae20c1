"""Where the ledger reaches below `eventsourcing`'s public API (pinned at 9.5.6): here only.

Everything else in `application/` uses the library's public API (`Application`,
`repository.get`, `recorder.select_events`, `max_notification_id`, `mapper`, `Aggregate`,
`Transcoding`). Each reach below it is listed here, with the contract test that pins it
(tests/integration/test_library_contract.py), so an upgrade shows exactly what breaks:

1. `saving.py`, the save: `Application.save` is replaced by a copy of its 9.5.6 body that
   calls the private steps `Application._record(processing_event)`,
   `Application._take_snapshots(processing_event)` and `Application._notify(recordings)`, and
   fills `ProcessingEvent.events`, `.aggregates` and `.saved_kwargs` itself
   (`test_save_steps_are_the_librarys`).
2. `saving.py`, telling a lost race from other refusals: the library raises its
   `IntegrityError` from the driver's error (`__cause__`): psycopg's, whose
   `diag.constraint_name` is `<events table>_pkey` for a version taken
   (`PostgresDatastore.get_connection`); sqlite3's, whose message names the columns
   (`SQLiteTransaction.__exit__`); POPO raises its own, "Stored event already recorded"
   (`test_a_version_taken_is_reported_as_*`).
3. `recorders.py`, `SQLiteChainRecorder`: overrides the private
   `SQLiteApplicationRecorder._insert_events(cursor, stored_events, **kwargs)`, called in the
   write transaction with the events' positions returned, to insert the hash rows in it
   (`test_sqlite_insert_hook_runs_in_the_write_transaction`); reads `datastore.transaction`
   and the table names `stored_events`, `stored_snapshots`.
4. `recorders.py`, `PostgresChainRecorder`: overrides the public `insert_events` but runs
   our insert function on `datastore.get_connection()`, with `datastore.lock_timeout` and
   `datastore.schema`, `events_table_name`, and the snapshots table named
   `<name>_snapshots` (`test_postgres_recorder_attributes`); the library's own insert is the
   fallback for a store not migrated yet.
5. `prepared.py` and `arrays.py`: below psycopg's public API rather than the library's:
   `Connection.pgconn` (libpq's `prepare`, `exec_prepared`), `Connection.lock`, and
   `psycopg.errors.error_from_result` (`test_psycopg_internals_the_prepared_path_uses`);
   the arrays are PostgreSQL's binary format (tests/integration/test_arrays.py).
6. The recorders are chosen by `APPLICATION_RECORDER_TOPIC` (config/), and the transcoded
   values (`{"_type_": ..., "_data_": ...}`) and `TOPIC` class attribute are the library's
   formats (`test_recorder_topic_and_pinned_topics`).
7. (Kept for application/clock.py, the simulated clock another branch adds: how events get
   their timestamps, the event classes' `create_timestamp()`, which calls
   `eventsourcing.domain.datetime_now_with_tzinfo`, as `Aggregate._create` and
   `trigger_event` do in 9.5.6. It belongs in this list, with a contract test of its own.)

Reached from outside this package, kept where they are because `projections/` may not
import `application/` (tests/unit/test_layers.py), pinned by the same contract tests:
- projections/store.py calls the tracking recorders' private `_insert_tracking(cursor,
  tracking)` in its own transaction (`datastore.transaction`), and projections/log.py reads
  the events table by `events_table_name` and `datastore.originator_id_type`
  (`test_tracking_insert_hook`);
- projections/decoding.py decodes stored events as the `Mapper` does (its tests hold the
  two to each other: tests/unit/test_decoding.py);
- verification/integrity.py and domain/aggregates/base.py (`CheapCopy`) read an aggregate's
  `__dict__`, whose library part is `_id`, `_version`, `_created_on`, `_modified_on` and
  `_pending_events` (`test_aggregate_attributes`).
"""

from application.eventstore.recorders import (
    HashRow,
    PostgresChainRecorder,
    SQLiteChainRecorder,
    StoredSnapshot,
    checkpoint,
)
from application.eventstore.saving import (
    RecordRefused,
    StoreApplication,
    VersionConflict,
    refused_constraint,
)

__all__ = ["HashRow", "PostgresChainRecorder", "RecordRefused", "SQLiteChainRecorder",
           "StoreApplication", "StoredSnapshot", "VersionConflict", "checkpoint",
           "refused_constraint"]
