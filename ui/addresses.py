"""Who is asking: the client address every per-client limit is keyed by (the sign-in throttle,
the caption quota, anonymous visitors' uploads), trusting forwarded headers only from the
proxies the operator names (``CINECAP_TRUSTED_PROXIES``)."""
from __future__ import annotations

import functools
import ipaddress
from typing import Any


@functools.lru_cache(maxsize=16)
def _networks(trusted: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(p, strict=False) for p in trusted)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address as a peer or a forwarded hop writes it (``1.2.3.4``, ``1.2.3.4:5678``,
    ``[::1]:80``, ``::1``), else None."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def client_address(request: Any, trusted_proxies: tuple[str, ...] = ()) -> str | None:
    """The address of the client that sent ``request`` (an ASGI scope, a Starlette request or a
    ``gr.Request``), for everything keyed by client (the sign-in throttle, quotas).

    The TCP peer, unless it is one of ``trusted_proxies`` (``Settings.trusted_proxies``,
    CINECAP_TRUSTED_PROXIES: addresses or CIDRs): then ``X-Forwarded-For`` is read from the
    right, hop by hop, while the hop that reported it is a trusted proxy; the first address
    reported by a trusted proxy about an untrusted one is the client. A client cannot choose its
    address by sending the header itself: from an untrusted peer the header is never read, and
    entries to the left of the first untrusted hop are the client's own words. (The launch
    options stop uvicorn from rewriting the peer from that header itself: ``ui.app``.)
    """
    if request is None:
        return None
    if isinstance(request, dict):  # an ASGI scope
        client = request.get("client")
        peer = client[0] if client else None
        forwarded = [v.decode("latin-1") for k, v in request.get("headers", [])
                     if k == b"x-forwarded-for"]
    else:
        client = getattr(request, "client", None)
        peer = getattr(client, "host", None) if client is not None else None
        headers = getattr(request, "headers", None) or {}
        getlist = getattr(headers, "getlist", None)
        forwarded = list(getlist("x-forwarded-for")) if getlist else (
            [headers["x-forwarded-for"]] if "x-forwarded-for" in headers else [])
    if peer is None:
        return None
    networks = _networks(tuple(trusted_proxies))
    current = _address(peer)
    if current is None:
        return peer[:64]
    hops = [h for value in forwarded for h in value.split(",") if h.strip()]
    while hops and any(current in n for n in networks if n.version == current.version):
        hop = _address(hops.pop())
        if hop is None:  # a garbled entry: the proxy that passed it on is the last one known
            break
        current = hop
    return str(current)
