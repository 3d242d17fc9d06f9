"""Serving with uvicorn: keep-alive and header-read timeouts, then `launch`.

Uvicorn closes idle keep-alive connections but has no deadline for a request's headers, so a
client can hold connections open by sending them slowly (or not at all). The protocol classes
here close a connection that has not sent a complete request head within `header_timeout_s`
of opening, or of its previous response.

Example:
    >>> uvicorn.Server(server_config(app, settings)).run()
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import uvicorn

    from ..chain import Assistant
    from ..config import Settings
    from ..store import Store


class HeaderTimeout:
    """Mixin for uvicorn's HTTP protocols: close a connection slow to send a request head."""

    header_timeout: float = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # type: ignore[misc]
        self._arm_header_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        self._arm_header_timer()  # the next request's head must come in time too

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        transport = self.transport  # type: ignore[attr-defined]
        if transport is None or transport.is_closing():
            return
        # A request whose head is complete gets a new cycle: if the cycle is still the one
        # we saw when arming, no request head arrived in time.
        self._header_timer = self.loop.call_later(  # type: ignore[attr-defined]
            self.header_timeout, self._header_deadline, self.cycle)  # type: ignore[attr-defined]

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_deadline(self, cycle: Any) -> None:
        self._header_timer = None
        transport = self.transport  # type: ignore[attr-defined]
        if self.cycle is cycle and not transport.is_closing():  # type: ignore[attr-defined]
            transport.close()


def protocol_class(header_timeout_s: float) -> type:
    """Return uvicorn's HTTP protocol (httptools if installed, else h11) with the timeout."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:  # pragma: no cover - httptools ships with uvicorn[standard]
        from uvicorn.protocols.http.h11_impl import H11Protocol as base
    return type(f"{base.__name__}WithHeaderTimeout", (HeaderTimeout, base),
                {"header_timeout": header_timeout_s})


def server_config(app: Any, settings: Settings, host: str | None = None,
                  port: int | None = None, log_level: str = "info") -> uvicorn.Config:
    """Return the uvicorn configuration the app is served with (tests use it too)."""
    import uvicorn

    # X-Forwarded-For is judged by ASSISTANT_TRUSTED_PROXIES, not by uvicorn.
    return uvicorn.Config(app, host=host or settings.server_name,
                          port=port or settings.server_port, proxy_headers=False,
                          log_level=log_level, lifespan="on", server_header=False,
                          timeout_keep_alive=settings.keep_alive_s,
                          # Gradio's event streams never end by themselves: without a
                          # deadline a shutdown waits for every open browser tab.
                          timeout_graceful_shutdown=5,
                          http=protocol_class(settings.header_timeout_s))


def launch(assistant: Assistant, store: Store | None = None) -> None:
    """Serve the app with uvicorn on settings.server_name:server_port until interrupted."""
    import uvicorn

    from .app import create_app

    s = assistant.settings
    app = create_app(assistant, store)
    base = f"http://{s.server_name}:{s.server_port}"
    print(f"* Chat:     {base}/")
    print(f"* Widget:   {base}/widget?page=nvlink")
    print(f"* Site:     {base}/glossary/nvlink")
    print(f"* JSON API: POST {base}/api/ask  (schema: {base}/api/openapi.json)")
    if s.admin_password:
        print(f"* Console:  {base}/admin (user admin)")
    uvicorn.Server(server_config(app, s)).run()
