"""What responses carry and whom requests are believed: the content security policy, cache
rules, the origin a browser sees, and HTML rewritten on its way out.

- Every response gets a CSP with `default-src 'self'` and `script-src 'self' 'nonce-...'`:
  Gradio's pages carry their config in inline scripts, so the edge gives each page response
  a fresh nonce and puts it on the page's `<script>` tags (`add_nonce`). Same-origin script
  files (`'self'`) need nothing more; no inline handler, `eval` or remote script runs.
- The console's responses are never stored by a cache (`no-store`); a Gradio page, which
  carries its nonce and the root URL it was asked under, neither; the config and API info,
  whose root URL follows a trusted proxy's X-Forwarded-Host/Proto, vary on those headers.
- `public_origin` is the origin the browser used: the Host header, or a trusted proxy's
  X-Forwarded-Host and X-Forwarded-Proto; from anyone else those headers are dropped
  (`drop_forwarded`) before Gradio builds URLs from them.

Example:
    >>> content_security_policy("/widget/", ["https://glossary.example"], "abc")
    "frame-ancestors 'self' https://glossary.example; default-src 'self'; script-src ..."
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

Send = Callable[[dict], Awaitable[None]]

#: Headers that name the host and scheme the browser used, believed only from trusted proxies.
FORWARDED = (b"x-forwarded-host", b"x-forwarded-proto", b"x-forwarded-port",
             b"x-forwarded-prefix", b"forwarded")
_SCRIPT = re.compile(rb"<script\b(?![^>]*\bnonce=)", re.IGNORECASE)
_DEFAULT_PORT = {"http": "80", "https": "443"}


def content_security_policy(path: str, origins: list[str], nonce: str = "") -> str:
    """Return the CSP of a response: scripts only from this origin (and inline ones carrying
    the response's nonce), no remote images, fonts, styles or connections; who may frame it
    (the console: only itself; the chat and widget: also the allowed origins)."""
    ancestors = "'self'" if path.startswith("/admin") else " ".join(["'self'", *origins])
    scripts = f"'self' 'nonce-{nonce}'" if nonce else "'self'"
    return (f"frame-ancestors {ancestors}; default-src 'self'; script-src {scripts}; "
            "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
            "font-src 'self' data:; connect-src 'self'; media-src 'self' blob:; "
            "worker-src 'self' blob:; frame-src 'self'; object-src 'none'; "
            "base-uri 'self'; form-action 'self'")


def cache_headers(path: str, html: bool) -> dict[str, str]:
    """Return the cache rules of a response, by path and whether it is an HTML page."""
    if path == "/admin" or path.startswith("/admin/") or html:
        return {"cache-control": "no-store"}
    if path.rstrip("/").endswith(("/config", "/gradio_api/info")):
        return {"vary": "X-Forwarded-Host, X-Forwarded-Proto"}
    return {}


def add_nonce(html: bytes, nonce: str) -> bytes:
    """Return an HTML page whose <script> tags all carry the nonce."""
    attribute = b' nonce="' + nonce.encode() + b'"'
    return _SCRIPT.sub(lambda m: m.group(0) + attribute, html)


def header(scope: dict, name: bytes) -> str:
    """Return one request header ("" without it)."""
    for key, value in scope.get("headers") or []:
        if key == name:
            return value.decode("latin-1")
    return ""


def is_trusted(scope: dict, trusted_proxies: str) -> bool:
    """Return whether the request's peer is one of the trusted proxies."""
    peer = (scope.get("client") or ("", 0))[0]
    return bool(peer) and peer in {p.strip() for p in trusted_proxies.split(",") if p.strip()}


def drop_forwarded(scope: dict, trusted_proxies: str) -> dict:
    """Return the scope without forwarded host/scheme headers unless a trusted proxy sent
    them: Gradio builds its pages' root URL from them, and a shared cache could serve a
    page made for one client's X-Forwarded-Host to everyone."""
    headers = scope.get("headers") or []
    if is_trusted(scope, trusted_proxies) or not any(k in FORWARDED for k, _ in headers):
        return scope
    return {**scope, "headers": [(k, v) for k, v in headers if k not in FORWARDED]}


def public_origin(scope: dict, trusted_proxies: str) -> str:
    """Return the origin the browser sees (scheme://host[:port]), as a trusted proxy says or
    else from the request itself."""
    trusted = is_trusted(scope, trusted_proxies)
    scheme = header(scope, b"x-forwarded-proto").split(",")[0].strip() if trusted else ""
    host = header(scope, b"x-forwarded-host").split(",")[0].strip() if trusted else ""
    scheme = (scheme or scope.get("scheme") or "http").lower()
    if not host:
        host = header(scope, b"host")
    if not host and scope.get("server"):
        name, port = scope["server"]
        host = f"{name}:{port}"
    host = host.lower()
    if host.endswith(":" + _DEFAULT_PORT.get(scheme, "")):
        host = host.rsplit(":", 1)[0]
    return f"{scheme}://{host}"


def patch_html(send: Send, transform: Callable[[bytes], bytes],
               when: Callable[[dict[bytes, bytes]], bool] = lambda headers: True) -> Send:
    """Return a send() that passes an HTML response through `transform` (content-length
    fixed), if `when` accepts its headers; any other response passes as it is."""
    held: dict[str, Any] = {"start": None, "chunks": []}

    async def patched(message: dict) -> None:
        if message["type"] == "http.response.start":
            headers = {k.lower(): v for k, v in message.get("headers", [])}
            html = headers.get(b"content-type", b"").startswith(b"text/html")
            if html and b"content-encoding" not in headers and when(headers):
                held["start"] = message
                return
            await send(message)
            return
        if held["start"] is None or message["type"] != "http.response.body":
            await send(message)
            return
        held["chunks"].append(message.get("body", b""))
        if message.get("more_body"):
            return
        body = transform(b"".join(held["chunks"]))
        start = held["start"]
        held["start"] = None
        start["headers"] = [(k, v) for k, v in start.get("headers", [])
                            if k.lower() != b"content-length"]
        start["headers"].append((b"content-length", str(len(body)).encode()))
        await send(start)
        await send({"type": "http.response.body", "body": body})

    return patched
