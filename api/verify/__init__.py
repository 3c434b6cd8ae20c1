"""`GET /verify/`: the hand-history verifier, one static page with its own JavaScript
(API.md, "A verifier in the browser"; docs/decisions.md 138).

The page is assembled once from page.html, its JavaScript (primitives.js, checks.js and
page.js, one script) and the vendored noble-ed25519 (vendor/, pinned by version and hash),
every script inline, so that the page saved to disk
is whole and works offline. Its Content-Security-Policy allows exactly those inline
scripts and style (by hash), no other resource, and a fetch of any address: the history
the user asks for.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from pathlib import Path

from flask import Blueprint, Response, redirect

HERE = Path(__file__).parent
NOBLE = HERE / "vendor" / "noble-ed25519-3.2.0.js"
NOBLE_SHA256 = "a4f631d1876b5d9e43a86cd71194ca27b5e1451edf4ba4db9a418f40a475569a"
SCRIPTS = ("primitives.js", "checks.js", "page.js")  # one script, in this order

bp = Blueprint("verifier", __name__)


@cache
def page() -> tuple[str, str]:
    """The page and its Content-Security-Policy."""
    vendored = NOBLE.read_bytes()
    if hashlib.sha256(vendored).hexdigest() != NOBLE_SHA256:
        raise RuntimeError(f"{NOBLE} is not the pinned noble-ed25519 3.2.0")
    html = (HERE / "page.html").read_text(encoding="utf-8")
    html = html.replace("/*NOBLE*/", vendored.decode("utf-8"), 1)
    script = "\n".join((HERE / name).read_text(encoding="utf-8") for name in SCRIPTS)
    html = html.replace("/*VERIFY*/", script, 1)
    scripts = re.findall(r"<script type=\"module\">(.*?)</script>", html, re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, re.S)
    policy = ("default-src 'none'; script-src " + " ".join(map(_hashed, scripts)) +
              "; style-src " + " ".join(map(_hashed, styles)) +
              "; connect-src *; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    return html, policy


def _hashed(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


@bp.get("/verify/")
def verifier() -> Response:
    html, policy = page()
    response = Response(html, mimetype="text/html")
    response.headers["Content-Security-Policy"] = policy
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@bp.get("/verify")
def verifier_slash() -> Response:
    return redirect("/verify/", 301)
