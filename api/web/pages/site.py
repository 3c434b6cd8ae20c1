"""The blueprint the pages hang on: how a page is rendered and sent, and the error pages.

Every outcome but the page itself is an error handled here, once, so a view never has to
catch one to show it (a refusal on a form is the exception: it is shown on that form).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, g, make_response, render_template, request
from werkzeug import Response
from werkzeug.exceptions import HTTPException

from api.calendar import as_of_cutoff, bound_text, club_calendar, club_view, parse_bound
from api.errors import reported
from api.inputs import text_problem
from api.services import ProjectionsBehind
from api.web.present import card, clock, signed, when
from application.eventstore import RecordRefused
from domain.engine.calendar import zone
from domain.errors import InvariantBroken, NotFound, PontoonError

log = logging.getLogger("pontoon.web")

# The templates and static files are api/web's, beside this package, not inside it.
bp = Blueprint("web", __name__, url_prefix="/web", root_path=str(Path(__file__).parent.parent),
               template_folder="templates", static_folder="static", static_url_path="/static")

TEXT_MAX = 2000  # the longest reason or note a form accepts


class FormError(Exception):
    """A form filled in wrongly (400), shown on the page the form is on; `field` is the id
    of the field at fault on that page, when one is."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class Fields:
    """Reads the fields of a form as the arg_* functions do, but keeps every refusal by its
    field's id rather than stopping at the first, so the page can show them all in an error
    summary beside what was typed (macros.html `error_summary`). `labels` name the fields
    as their labels do, in the messages."""

    def __init__(self, **labels: str) -> None:
        self.labels = labels
        self.errors: dict[str, str] = {}

    def read(self, reader: Callable[..., Any], name: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return reader(name, *args, **kwargs)
        except FormError as error:
            self.refuse(error.field or name, str(error))
            return None

    def refuse(self, field: str, message: str) -> None:
        label = self.labels.get(field, field)
        self.errors.setdefault(field, message.replace(f"`{field}`", label))

    def period(self, start: str = "from", end: str = "to", *, default: str = ""
               ) -> tuple[str | None, str | None]:
        """`from` and `to`, refused as the API refuses them when reversed or empty."""
        first = self.read(arg_moment, start, default=default)
        last = self.read(arg_moment, end, end=True, default=default)
        if first is not None and last is not None and first >= last:
            self.refuse(start, f"`{start}` must come before `{end}`: this period would be "
                               "empty or reversed.")
        return first, last


def render(template: str, status: int = 200, *, scripts: bool = False, **context: Any
           ) -> Response:
    """`scripts`: the page loads a script of the site's own (a contribution's randomness,
    pages/packs.py); every other page allows none."""
    g.page_scripts = scripts
    return make_response(render_template(template, **context), status)


def here() -> str:
    """This page's address, to come back to after signing in or catching up."""
    return request.full_path.rstrip("?")


def arg_int(name: str, default: int | None = None) -> int | None:
    value = request.args.get(name)
    if value is None or value == "":
        return default
    if not (value.isascii() and value.isdigit()) or len(value) > 18:
        raise FormError(f"`{name}` must be a whole number", name)
    return int(value)


def arg_moment(name: str, *, end: bool = False, default: str = "") -> str | None:
    """A period's bound from a date or time field (`from`, `to`), on the club's calendar
    as the API reads it, but a time without its offset is the club's own time."""
    value = request.args.get(name, "").strip() or default
    if not value:
        return None
    calendar = club_calendar()
    try:
        return bound_text(parse_bound(value, local=calendar), calendar, end=end)
    except ValueError:
        raise FormError(f"`{name}` must be a date (2026-12-05, a club day) or a time "
                        "(2026-12-05T20:00, the club's time).", name) from None


def arg_cutoff(name: str) -> str | None:
    """`as_of`: a club day (its end) or a time (the club's own time without an offset), as
    the cutoff of the postings counted (exclusive: just after the time given)."""
    value = request.args.get(name, "").strip()
    if not value:
        return None
    calendar = club_calendar()
    try:
        return as_of_cutoff(parse_bound(value, local=calendar), calendar)
    except ValueError:
        raise FormError(f"`{name}` must be a date (2026-12-05: the end of that club day) or "
                        "a time (2026-12-05T20:00, the club's time).", name) from None


def arg_choice(name: str, choices: tuple[str, ...]) -> str:
    """One of `choices`, the first when the field is absent."""
    value = request.args.get(name) or choices[0]
    if value not in choices:
        raise FormError(f"`{name}` is one of {', '.join(choices)}.", name)
    return value


def arg_text(name: str, longest: int = 100) -> str | None:
    """A one-line text field, checked as the API checks text (decision 32): a NUL or a lone
    surrogate must never reach a store that cannot keep it."""
    value = request.args.get(name, "").strip()
    if len(value) > longest:
        raise FormError(f"`{name}` is at most {longest} characters.", name)
    if (problem := text_problem(value)) is not None:
        raise FormError(f"`{name}`: {problem}.", name)
    return value or None


@bp.context_processor
def words() -> dict[str, Any]:
    """Times in the club's zone, which every page names (`zone_name`), and the banner of a
    simulated store."""
    club = club_view()
    local = zone(club.rule.time_zone)
    return {"card": card, "when": lambda text: when(text, local),
            "clock": lambda text: clock(text, local), "signed": signed,
            "zone_name": club.rule.time_zone, "day_starts_at": club.rule.day_starts_at,
            "club_name": club.name, "simulated": simulated()}


def simulated() -> bool:
    """Whether the store holds a simulated history: every page says so (a banner). Once
    marked always marked, so this process asks the store until it is."""
    extensions = current_app.extensions
    if not extensions.get("pontoon.simulated"):
        extensions["pontoon.simulated"] = extensions["pontoon"].ledger.simulated()
    return bool(extensions["pontoon.simulated"])


@bp.after_request
def headers(response: Response) -> Response:
    if response.mimetype == "text/html":
        response.headers["Cache-Control"] = "no-store"
        scripts = "'self'" if g.get("page_scripts") else "'none'"
        response.headers["Content-Security-Policy"] = (
            f"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src {scripts}; "
            "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
    return response


# --- errors as pages -------------------------------------------------------------------

@bp.errorhandler(FormError)
def form_error(error: FormError) -> Response:
    return render("error.html", 400, title="Something in the request is not right",
                  message=str(error))


@bp.errorhandler(PontoonError)
def refused(error: PontoonError) -> Response:
    if isinstance(error, NotFound):
        return render("error.html", 404, title="Not found", message=error.message)
    return render("error.html", error.status, title="Refused", message=error.message,
                  rule=error.rule)


@bp.errorhandler(InvariantBroken)
@bp.errorhandler(RecordRefused)
def failed(error: InvariantBroken | RecordRefused) -> Response:
    return render("error.html", 500, title="The ledger stopped this",
                  message=f"{reported(error)}: {g.get('request_id')}.")


@bp.errorhandler(ProjectionsBehind)
def behind(error: ProjectionsBehind) -> Response:
    response = render("error.html", 503, title="The ledger's pages are catching up",
                      message=f"{error}. Reload this page in a moment.", retry=here())
    response.headers["Retry-After"] = "1"
    return response


@bp.errorhandler(HTTPException)
def http_error(error: HTTPException) -> Response:
    code = error.code or 500
    return render("error.html", code, title=error.name, message=error.description)


@bp.errorhandler(Exception)
def unexpected(error: Exception) -> Response:
    log.exception("unexpected error on a web page")
    return render("error.html", 500, title="The page failed",
                  message="Something went wrong on our side; nothing was recorded by this "
                          "page. Try again, and tell the club's operator if it persists.")
