"""The app assembly: pages, routes and middleware in one FastAPI app, services passed in.

`Services` holds what the pages, the routes and the edge share (settings, the log, the
admission limits, the console's sign-ins); `create_app` builds the pages, mounts them and adds
the middleware, and its lifespan runs the housekeeping (retention, stale temp files).

Example:
    >>> app = create_app(Assistant())   # FastAPI: /, /widget, /admin, /api/ask, /glossary/...
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gradio as gr
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import RedirectResponse
from starlette.routing import Route

from ..cache import perf_stats
from ..handoff import Inbox
from ..limits import Admission, ConcurrencyCap, LoginGuard, RateLimiter
from ..overview import health_of
from ..site import mount_site, widget_head
from ..store import Store
from ..views import VIEWS
from .api import JsonApi, validation_problem
from .auth import ConsoleAuth, ConsoleGate, console_routes
from .chat import QUESTION_APIS, TITLE, ChatPage
from .console import Console, page_titles
from .console_api import export_routes, inbox_routes, overview_routes, staff_routes
from .edge import Edge, MountPolicy
from .render import parse_origins, static_path

if TYPE_CHECKING:
    from ..chain import Assistant
    from ..config import Settings

log = logging.getLogger(__name__)

ADMIN = "/admin"
MCP = "/mcp"  # the MCP endpoint (streamable HTTP), when ASSISTANT_MCP=1
#: Routes of the JSON API admitted like questions (rate limit, concurrency cap).
QUESTION_ROUTES = frozenset({"/api/ask", "/api/handoff"})
DAY_S = 24 * 3600


@dataclass
class Services:
    """What the pages, the routes and the edge share, made once per app."""

    settings: Settings
    store: Store
    admission: Admission
    console_auth: ConsoleAuth | None = None
    inbox: Inbox | None = None  # where "Ask support" requests go (made from the store)

    def __post_init__(self) -> None:
        if self.inbox is None:
            self.inbox = Inbox(self.store, self.settings)

    @classmethod
    def from_settings(cls, settings: Settings, store: Store | None = None) -> Services:
        """Build the services the settings describe (the log at settings.log_db by default)."""
        store = store if store is not None else Store(settings.log_db,
                                                      settings.max_question_chars)
        admission = Admission(RateLimiter(settings.rate_limit_per_minute),
                              ConcurrencyCap(settings.max_concurrent_per_ip),
                              RateLimiter(settings.event_rate_limit), settings.max_queued_per_ip)
        auth = None
        if settings.admin_password:
            guard = LoginGuard(settings.admin_password,
                               max_global_failures=settings.login_brake)
            auth = ConsoleAuth(settings.admin_password, guard=guard,
                               session_s=settings.console_session_hours * 3600)
        return cls(settings, store, admission, auth)


def page_options(compact: bool = False) -> dict[str, Any]:
    """Return the look of a page, for mount_gradio_app() or Blocks.launch()."""
    # The primary button one shade darker than Gradio's: white on it meets WCAG AA (4.5:1).
    theme = gr.themes.Default(primary_hue="blue").set(
        button_primary_background_fill="*primary_700",
        button_primary_background_fill_hover="*primary_800")
    return {"theme": theme,
            "css_paths": [static_path("widget.css")]
            + ([static_path("compact.css")] if compact else []),
            "footer_links": [] if compact else ["api"],
            "run_history": False, "ssr_mode": False}


def build_demo(assistant: Assistant, store: Store | None = None, *, compact: bool = False,
               settings: Settings | None = None) -> gr.Blocks:
    """Build the visitor chat (compact=True: the iframe widget) as a gr.Blocks, not launched."""
    settings = settings or assistant.settings
    services = Services.from_settings(settings, store)
    return ChatPage(assistant, services.store, settings, services.admission,
                    compact=compact).build()


def remove_stale_exports() -> int:
    """Delete console CSV copies and export dirs that older versions left in temp dirs.

    Only our own files: `assistant-console-*` folders, and the view CSVs (recent.csv, ...)
    in Gradio's cache. Returns how many files or folders went.
    """
    removed = 0
    for folder in Path(tempfile.gettempdir()).glob("assistant-console-*"):
        shutil.rmtree(folder, ignore_errors=True)
        removed += 1
    cache = Path(gr.utils.get_upload_folder())
    for name in VIEWS:
        for path in cache.glob(f"*/{name}.csv"):
            path.unlink(missing_ok=True)
            removed += 1
            try:
                path.parent.rmdir()  # only if nothing else is in it
            except OSError:
                pass
    return removed


def housekeeping(services: Services) -> None:
    """Delete what the retention period and older versions left behind."""
    try:
        services.store.purge(services.settings.retention_days)
    except Exception:  # a log that cannot be purged must not stop the app
        log.exception("could not apply the retention period")
    removed = remove_stale_exports()
    if removed:
        log.info("removed %d stale console exports from temp dirs", removed)


def lifespan_for(services: Services, also: list[Any] | None = None):
    """Return a lifespan that runs the housekeeping at start, daily, and at shutdown, and
    runs the context managers in `also` (filled while the app is built) as long as the app."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async def daily() -> None:
            while True:
                await asyncio.sleep(DAY_S)
                await asyncio.to_thread(housekeeping, services)

        await asyncio.to_thread(housekeeping, services)
        task = asyncio.create_task(daily())
        try:
            async with AsyncExitStack() as stack:
                for manager in also or []:
                    await stack.enter_async_context(manager())
                yield
        finally:
            task.cancel()
            remove_stale_exports()

    return lifespan


def create_app(assistant: Assistant, store: Store | None = None, *,
               settings: Settings | None = None, services: Services | None = None) -> FastAPI:
    """Build the FastAPI app: chat at /, widget at /widget, console at /admin, the JSON API at
    /api/ask and the glossary site, every request through the edge (see `edge`)."""
    settings = settings or (services.settings if services else assistant.settings)
    services = services or Services.from_settings(settings, store)
    origins = parse_origins(settings.allowed_origins)
    running: list[Any] = []  # what runs as long as the app (the MCP endpoint's sessions)
    app = FastAPI(title=TITLE, version="1", docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json", lifespan=lifespan_for(services, running))
    # 422 naming the field for any input, NaN and 1e400 included (never a 500).
    app.add_exception_handler(RequestValidationError, validation_problem)
    api = JsonApi(assistant, services.store, settings, services.inbox)
    app.include_router(api.router())
    _site_routes(app, assistant, services.store)
    if settings.mcp:
        running.append(mount_mcp(app, assistant, services, api.limiter))
    policies = _mount_pages(app, assistant, services)
    # With a CORSMiddleware on the parent, Gradio leaves CORS to it: only the listed origins
    # may call the API from a browser (Gradio alone would allow any origin off localhost).
    app.add_middleware(CORSMiddleware, allow_origins=origins, allow_methods=["GET", "POST"],
                       allow_headers=["*"], allow_credentials=False)
    if services.console_auth is not None:
        app.add_middleware(ConsoleGate, auth=services.console_auth, prefix=ADMIN,
                           trusted_proxies=settings.trusted_proxies)
    # Added last, so outermost: every request and response passes it first.
    app.add_middleware(Edge, origins=origins, mounts=policies, admission=services.admission,
                       settings=settings, router=app.router, questions=QUESTION_ROUTES,
                       hash_ip=services.store.hash_ip)
    return app


def mount_mcp(app: FastAPI, assistant: Assistant, services: Services, limiter: Any) -> Any:
    """Add the MCP endpoint at /mcp (a route of the app, so the edge caps its body); return
    what the lifespan must run."""
    from ..mcp_server import GlossaryMcp

    glossary = GlossaryMcp(assistant, services.store, services.settings,
                           admission=services.admission, limiter=limiter)
    endpoint, manager = glossary.http_endpoint()
    app.router.routes.append(Route(MCP, endpoint=endpoint, methods=["GET", "POST", "DELETE"]))
    return manager.run


def _site_routes(app: FastAPI, assistant: Assistant, store: Store) -> None:
    # The glossary site (/glossary, /learn, /calculators, the calculator API, /embed-demo
    # redirecting to a page): before the mount at "/", which would answer those paths itself.
    # Pages show their published staff answers, as the chat cites them.
    mount_site(app, assistant.corpus, staff=lambda: store.staff_entries(status="published"))

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, Any]:
        return {"ok": True, "pages": len(assistant.corpus), **perf_stats(assistant)}

    # /widget?page=x -> /widget/?page=x: a mount only matches below its prefix, and the
    # chat mounted at / would otherwise answer /widget with its own 404.
    @app.get("/widget", include_in_schema=False)
    @app.get(ADMIN, include_in_schema=False)
    def add_slash(request: Request) -> RedirectResponse:
        query = request.url.query
        return RedirectResponse(request.url.path + "/" + (f"?{query}" if query else ""),
                                status_code=307)


def _mount_pages(app: FastAPI, assistant: Assistant, services: Services) -> list[MountPolicy]:
    """Mount the console (with a password), the widget and the chat; describe each mount."""
    settings = services.settings
    # Routes of the parent app must exist before the mounts: Starlette matches in order.
    mount = {"server_name": settings.server_name, "server_port": settings.server_port,
             "max_file_size": 1}  # no upload component anywhere; the edge refuses the route
    policies = []
    auth = services.console_auth
    if auth is not None:
        app.include_router(console_routes(auth, ADMIN, settings.trusted_proxies))
        app.include_router(export_routes(services.store, auth, ADMIN))
        app.include_router(inbox_routes(services.store, auth, ADMIN))
        app.include_router(staff_routes(services.store, assistant, auth, ADMIN))
        health = health_of(app)
        app.include_router(overview_routes(services.store, auth, ADMIN,
                                           page_titles(assistant), health))
        admin = Console(services.store, settings, assistant, health=health).build()
        gr.mount_gradio_app(app, admin, ADMIN, auth_dependency=auth.request_user,
                            **mount, **page_options(compact=True))
        policies.append(MountPolicy.of(ADMIN, admin))
    for prefix, compact in (("/widget", True), ("/", False)):
        page = ChatPage(assistant, services.store, settings, services.admission,
                        compact=compact, inbox=services.inbox)
        blocks = page.build()
        # The chat's script on both; the widget's also loads the bridge to a framing page.
        gr.mount_gradio_app(app, blocks, prefix, **mount, **page_options(compact=compact),
                            head=widget_head(framed=prefix == "/widget"))
        policies.append(MountPolicy.of(prefix, blocks, page.question_events, QUESTION_APIS))
    return policies
