"""What a running API needs: settings and the one Ledger application of this process."""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import UUID

from api.auth import Principal
from application import Ledger
from application.store import build_ledger
from config import Settings
from domain.errors import NotNow, PontoonError
from projections import election
from projections.runner import ModelFailing, Projections
from projections.service import checkpointer_for, duties, sender_for
from projections.store import read_store


class ProjectionsBehind(Exception):
    """A read asked for a position the read models have not applied yet (503)."""


class Services:
    def __init__(self, settings: Settings, ledger: Ledger | None = None) -> None:
        self.settings = settings
        self.ledger = ledger or build_ledger(settings)
        self.store = read_store(self.ledger, settings)
        self.projections = Projections(self.ledger, self.store) if self.store else None
        self._principals: dict[str, _Cached] = {}
        self.migrated = False  # set once readiness has seen every migration applied
        self._lock = threading.Lock()
        self._stop = threading.Event()
        if settings.treasurer_token:
            self.adopt_treasurer_token(settings.treasurer_token)
        self._runner = None
        self.sender = sender_for(self.projections, settings) if self.projections else None
        if self.projections is not None and self.sender is not None \
                and settings.projections_in_process:
            # Every process stands in the election; the one elected runs the read models
            # and webhook deliveries (projections/election.py).
            self._runner = election.start(
                election.election_for(settings),
                duties(self.projections, self.sender,
                       checkpointer_for(self.projections, settings)), self._stop)

    def close(self) -> None:
        """Stop following the log (the page under way is finished, and attempts at webhook
        deliveries) before the store's connections close under it."""
        self._stop.set()
        if self._runner is not None:
            self._runner.join(timeout=40)
        self.ledger.close()

    def caught_up(self, min_position: int | None, timeout: float = 5.0) -> None:
        """Read-your-writes: wait (bounded) until the read models have applied a position."""
        if min_position is None:
            return
        if self.projections is None:
            raise ProjectionsBehind("this store keeps no read models")
        head = self.projections.head()
        if min_position > head:
            raise NotNow(f"min_position {min_position} is beyond the end of the event log "
                         f"(position {head}): pass the position a command answered")
        try:
            self.projections.wait(min_position, timeout)
        except ModelFailing as failing:
            raise ProjectionsBehind(str(failing)) from None
        except TimeoutError:
            raise ProjectionsBehind(f"the read models have not reached position "
                                    f"{min_position} yet; try again shortly") from None

    def adopt_treasurer_token(self, token: str) -> None:
        """The first treasurer comes from PONTOON_TREASURER_TOKEN (API.md)."""
        if self.ledger.principal(token) is None:
            # Several workers may start at once: whoever records it first wins.
            with contextlib.suppress(PontoonError):
                self.ledger.create_token("treasurer", token=token)

    def principal(self, token: str) -> Principal | None:
        """Who holds `token`, if it is known, not revoked and not expired."""
        found = self.authenticate(token)
        return found if isinstance(found, Principal) else None

    def authenticate(self, token: str, *, deferred: bool = False) -> Principal | str:
        """The token's principal, or why it is refused.

        A principal is cached per token with its token's version; every request checks in
        one indexed read that the version has not moved (a revocation in any worker or on any
        host), so a revoked token is refused at once everywhere. `deferred`: a command's
        request, whose check is made by the command's own read of the store, in the same
        round trip, before it saves (application/base.py; api/edge.py settles it when no
        command ran, and a token found changed is refused then).
        """
        cached = self._principals.get(token)
        if cached is not None and deferred:
            self.ledger.defer_token_check(cached.key, cached.version)
        elif cached is None or self.ledger.token_changed(cached.key, cached.version):
            cached = self._load(token)
            if cached is None:
                return "this token is not known to the ledger"
        if cached.revoked:
            return "this token was revoked"
        if cached.expires_at is not None and datetime.now(UTC) >= cached.expires_at:
            return "this token has expired"
        return cached.principal

    def reauthenticate(self, token: str) -> Principal | str:
        """Authenticate again, from the store, a token a command found changed."""
        with self._lock:
            self._principals.pop(token, None)
        return self.authenticate(token)

    def known_valid(self, token: str) -> bool:
        """Seen valid by this worker already (no store read): the failed-authentication
        limit lets such a token through from a client address it blocks."""
        cached = self._principals.get(token)
        return cached is not None and not cached.revoked

    def _load(self, token: str) -> _Cached | None:
        found = self.ledger.principal(token)
        if found is None:
            return None
        who = Principal(f"player:{found.player_id}" if found.role == "player"
                        else f"{found.role}:{found.principal_id}", found.role, found.player_id)
        cached = _Cached(who, found.id, found.version, found.revoked, found.expires_at)
        with self._lock:
            if len(self._principals) > 10_000:
                self._principals.clear()
            self._principals[token] = cached
        return cached


@dataclass(frozen=True)
class _Cached:
    principal: Principal
    key: UUID  # the token aggregate's id
    version: int
    revoked: bool
    expires_at: datetime | None
