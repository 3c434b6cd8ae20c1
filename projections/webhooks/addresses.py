"""Where a webhook may be delivered: never into the service's own network (API.md
Additions). A URL whose host is, or resolves to, a loopback, private, link-local, multicast,
unspecified, reserved or other non-public address is refused, unless the operator allows
it (PONTOON_WEBHOOK_ALLOW_PRIVATE=true, for a receiver on the same host or network on
purpose). Checked when subscribing, and again at every delivery, which connects only to an
address it has just resolved and checked: a name that resolved to a public address when
subscribed and to 127.0.0.1 later (DNS rebinding) is refused then.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from typing import Any
from urllib.parse import urlsplit

Address = tuple[int, Any]  # a socket family and the address to connect to


class Refused(Exception):
    """The receiver cannot be reached at an allowed address."""


class Unresolved(Refused):
    """The host does not resolve (now)."""


class Forbidden(Refused):
    """The host is, or resolves to, an address webhooks may not reach."""


def forbidden(text: str) -> str | None:
    """Why an IP address may not receive webhooks, or None."""
    address = ipaddress.ip_address(text.split("%", 1)[0])  # an IPv6 zone is no exception
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    for kind, found in (("a loopback", address.is_loopback),
                        ("a link-local", address.is_link_local),
                        ("a multicast", address.is_multicast),
                        ("an unspecified", address.is_unspecified),
                        ("a private", address.is_private), ("a reserved", address.is_reserved),
                        ("not a public", not address.is_global)):
        if found:
            return f"{address} is {kind} address"
    return None


def host_and_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)


def literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def resolve(host: str, port: int, within: float) -> list[Address]:
    """The host's addresses, looked up in a thread of its own so that a resolver that
    hangs costs at most `within` seconds (the lookup itself cannot be interrupted)."""
    found: list[Address] = []
    failed: list[BaseException] = []

    def lookup() -> None:
        try:
            found.extend((family, sockaddr) for family, _, _, _, sockaddr in
                         socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as error:
            failed.append(error)

    thread = threading.Thread(target=lookup, name="webhook-dns", daemon=True)
    thread.start()
    thread.join(within)
    if thread.is_alive():
        raise Unresolved(f"{host} did not resolve within {within:g} s")
    if failed or not found:
        raise Unresolved(f"{host} does not resolve ({failed[0] if failed else 'no address'})")
    return found


def checked(host: str, port: int, *, allow_private: bool, within: float) -> list[Address]:
    """The addresses to connect to: every one the host resolves to must be allowed (a
    resolver may mix a public address with a private one)."""
    addresses = resolve(host, port, within)
    if not allow_private:
        for _, sockaddr in addresses:
            reason = forbidden(sockaddr[0])
            if reason is not None:
                raise Forbidden(f"{host} resolves to {sockaddr[0]}: {reason}, which webhooks "
                              f"may not reach" if not literal(host) else
                              f"{reason}, which webhooks may not reach")
    return addresses


def refusal_at_subscription(url: str, *, allow_private: bool, within: float = 5.0
                            ) -> str | None:
    """Why a subscription to `url` is refused for its address, or None. A host that does
    not resolve now is accepted: it is checked again at each delivery."""
    if allow_private:
        return None
    host, port = host_and_port(url)
    try:
        checked(host, port, allow_private=False, within=within)
    except Forbidden as refused:
        return str(refused)
    except Unresolved:
        pass
    return None
