"""Read endpoints backed by projections (statements, kitty history, audits, disputes, the
event feed). Until the projections exist they answer 501 with problem+json: never invented
data."""

from __future__ import annotations

from uuid import UUID

from flask.views import MethodView
from flask_smorest import Blueprint

from api.auth import principal
from api.errors import problem

blp = Blueprint("reads", __name__, url_prefix="/v1", description="Projection-backed reads")

NOT_YET = "this read needs the projections, which are not built yet"


def _not_yet():  # type: ignore[no-untyped-def]
    principal()
    return problem(501, NOT_YET)


@blp.route("/players/<uuid:player_id>/statement")
class Statement(MethodView):
    @blp.response(501)
    def get(self, player_id: UUID):  # type: ignore[no-untyped-def]
        """A player's postings with running balance (coming with the projections)."""
        return _not_yet()


@blp.route("/balances")
class Balances(MethodView):
    @blp.response(501)
    def get(self):  # type: ignore[no-untyped-def]
        """Every account's balance; the total is always 0 (coming with the projections)."""
        return _not_yet()


@blp.route("/tables/<uuid:table_id>/kitty-history")
class KittyHistory(MethodView):
    @blp.response(501)
    def get(self, table_id: UUID):  # type: ignore[no-untyped-def]
        """Every change of a table's kitty (coming with the projections)."""
        return _not_yet()


@blp.route("/deals/<uuid:deal_id>/audit")
class Audit(MethodView):
    @blp.response(501)
    def get(self, deal_id: UUID):  # type: ignore[no-untyped-def]
        """The dispute audit of a deal (coming with the projections)."""
        return _not_yet()


@blp.route("/deals/<uuid:deal_id>/disputes")
class DealDisputes(MethodView):
    @blp.response(501)
    def post(self, deal_id: UUID):  # type: ignore[no-untyped-def]
        """Raise a dispute about a deal (coming with the projections)."""
        return _not_yet()


@blp.route("/disputes")
class Disputes(MethodView):
    @blp.response(501)
    def get(self):  # type: ignore[no-untyped-def]
        """Disputes by status (coming with the projections)."""
        return _not_yet()


@blp.route("/disputes/<uuid:dispute_id>/resolution")
class Resolution(MethodView):
    @blp.response(501)
    def post(self, dispute_id: UUID):  # type: ignore[no-untyped-def]
        """Resolve a dispute (coming with the projections)."""
        return _not_yet()


@blp.route("/events")
class Events(MethodView):
    @blp.response(501)
    def get(self):  # type: ignore[no-untyped-def]
        """The global event log (coming with the projections)."""
        return _not_yet()
