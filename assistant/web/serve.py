"""Serving with uvicorn: keep-alive, header and body read timeouts, the access log, `launch`.

Uvicorn closes idle keep-alive connections but has no deadline for a request's headers or
body, so a client can hold connections open by sending them slowly (or not at all). The
protocol classes here close a connection that has not sent a complete request head within
`header_timeout_s` of opening, or of its previous response, and one whose body has not
arrived within `header_timeout_s` of its head.

Uvicorn's access log names each client's IP; the README promises visitor IPs are never
stored, so it is off, and the edge writes the access log instead (logger `assistant.access`),
naming a client by the salted hash the question log uses.

Example:
    >>> uvicorn.Server(server_config(app, settings)).run()
"""

from __future__ import annotations

import asyncio
import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import uvicorn

    from ..chain import Assistant
    from ..config import Settings
    from ..store import Store


class HeaderTimeout:
    """Mixin for uvicorn's HTTP protocols: close a connection slow to send a request head,
    or a request body (1 byte every few seconds would otherwise hold it for ever)."""

    header_timeout: float = 10.0
    _header_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None
    _body_cycle: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # type: ignore[misc]
        self._arm_header_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        self._arm_header_timer()  # the next request's head must come in time too

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None
        super().connection_lost(exc)  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        super().data_received(data)  # type: ignore[misc]
        # A request whose head has arrived and whose body has not: its body has until the
        # same timeout to arrive, counted from the first bytes after its head.
        cycle = getattr(self, "cycle", None)
        if (cycle is not None and cycle is not self._body_cycle
                and getattr(cycle, "more_body", False)):
            self._body_cycle = cycle
            if self._body_timer is not None:
                self._body_timer.cancel()
            self._body_timer = self.loop.call_later(  # type: ignore[attr-defined]
                self.header_timeout, self._body_deadline, cycle)

    def _body_deadline(self, cycle: Any) -> None:
        self._body_timer = None
        transport = self.transport  # type: ignore[attr-defined]
        if (self.cycle is cycle and getattr(cycle, "more_body", False)  # type: ignore
                and not transport.is_closing()):
            transport.close()

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


def log_config() -> dict[str, Any]:
    """Return uvicorn's logging configuration plus the app's access log (to stdout)."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["assistant"] = {"()": "uvicorn.logging.DefaultFormatter",
                                         "fmt": "%(levelprefix)s %(message)s"}
    config["handlers"]["assistant"] = {"formatter": "assistant", "class": "logging.StreamHandler",
                                       "stream": "ext://sys.stdout"}
    config["loggers"]["assistant.access"] = {"handlers": ["assistant"], "level": "INFO",
                                             "propagate": False}
    return config


def server_config(app: Any, settings: Settings, host: str | None = None,
                  port: int | None = None, log_level: str = "info") -> uvicorn.Config:
    """Return the uvicorn configuration the app is served with (tests use it too)."""
    import uvicorn

    # X-Forwarded-For is judged by ASSISTANT_TRUSTED_PROXIES, not by uvicorn; uvicorn's
    # access log (raw client IPs) is off: the edge logs requests with hashed clients.
    return uvicorn.Config(app, host=host or settings.server_name,
                          port=port or settings.server_port, proxy_headers=False,
                          access_log=False, log_config=log_config(),
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
