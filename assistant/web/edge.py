"""The edge: one ASGI middleware every request passes before FastAPI or Gradio sees it.

In order, it
1. adds the security headers to every response (streaming-safe);
2. refuses a body larger than the cap with HTTP 413, before anything parses it (a declared
   Content-Length is refused unread; a chunked body is cut off at the cap);
3. lets through only the Gradio routes the pages need, per mount (no upload, no `file=`, no
   token, no direct `run`): anything else under a Gradio mount is a 404, as is an event or API
   name the mount does not have (Gradio itself would answer 500);
4. admits every event entering a page's queue (questions, page loads, thumbs, new chat, a
   cancel ...) against the client's event rate and its events already queued, and questions
   (the chat's events, Gradio's `ask`/`chat` API, `POST /api/ask`) also against the
   per-client question rate and concurrency cap, *before* they enter a queue: a refused one
   gets HTTP 429 with Retry-After and the answer object with `kind: "rate_limited"`; a full
   queue's 503 gets Retry-After and the `busy` answer, never the queue's size.

Example:
    >>> app.add_middleware(Edge, origins=[], mounts=[...], admission=gate, settings=settings,
    ...                    router=app.router, questions={"/api/ask"})
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from starlette.routing import Match, Mount

from ..answer import Answer
from ..compose import templates
from ..limits import Admission, client_ip
from .policy import add_nonce, cache_headers, drop_forwarded, patch_html
from .render import drop_query_param, security_headers

log = logging.getLogger(__name__)
#: One line per request, naming the client by a salted hash, never by its IP.
access_log = logging.getLogger("assistant.access")

Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]

#: The Gradio routes a page needs (paths relative to its mount): the page, its config, assets,
#: the queue and the named API. Everything else Gradio serves (upload, file=, proxy=, token,
#: run/, api/, call/v2, monitoring, vibe-edit, ...) is refused with a 404.
_GRADIO_ROUTES = [
    ({"GET", "HEAD"}, re.compile(r"/?")),
    ({"GET"}, re.compile(r"/config/?")),
    ({"GET"}, re.compile(r"/theme\.css")),
    ({"GET"}, re.compile(r"/favicon\.ico")),
    ({"GET"}, re.compile(r"/(assets|static|svelte)/[^?#]+")),
    ({"GET"}, re.compile(r"/gradio_api/info/?")),
    ({"GET"}, re.compile(r"/gradio_api/heartbeat/[\w-]+")),
    ({"GET"}, re.compile(r"/gradio_api/queue/data")),
    ({"POST"}, re.compile(r"/gradio_api/cancel")),  # an event: counted, not queued
    ({"POST"}, re.compile(r"/gradio_api/queue/join")),
    ({"POST"}, re.compile(r"/gradio_api/call/(?P<api>[\w-]+)/?")),
    ({"GET"}, re.compile(r"/gradio_api/call/(?P<api>[\w-]+)/[\w-]+")),
]
_JOIN = "/gradio_api/queue/join"
_CANCEL = "/gradio_api/cancel"
#: Seconds a client is told to wait when the queue is full.
BUSY_RETRY_S = 5


@dataclass(frozen=True)
class MountPolicy:
    """What the edge knows of one Gradio mount: its events, its API, which ones are questions."""

    prefix: str  # "/", "/widget", "/admin"
    events: frozenset[int]  # every fn index the page may trigger
    apis: frozenset[str] = frozenset()  # public API names
    question_events: frozenset[int] = frozenset()
    question_apis: frozenset[str] = frozenset()
    queue: Any = field(default=None, compare=False, repr=False)  # the Blocks' Gradio queue

    @classmethod
    def of(cls, prefix: str, blocks: Any, question_events: Iterable[int] = (),
           question_apis: Iterable[str] = ()) -> MountPolicy:
        """Describe a built gr.Blocks mounted at `prefix`."""
        deps = blocks.get_config_file()["dependencies"]
        apis = {d["api_name"] for d in deps
                if d.get("api_name") and d.get("api_visibility") == "public"}
        return cls(prefix.rstrip("/") or "/", frozenset(d["id"] for d in deps),
                   frozenset(apis), frozenset(question_events), frozenset(question_apis) & apis,
                   getattr(blocks, "_queue", None))

    def queued_events(self) -> list[Any]:
        """Return the events waiting or running in this page's queue (Gradio's own records:
        an event leaves them when it has finished, failed or been cancelled)."""
        return list(getattr(self.queue, "event_ids_to_events", {}).values())

    def relative(self, path: str) -> str | None:
        """Return the path below this mount, or None when the path is not under it."""
        if self.prefix == "/":
            return path
        if path == self.prefix or path.startswith(self.prefix + "/"):
            return path[len(self.prefix):] or "/"
        return None


@dataclass(frozen=True)
class Route:
    """How the edge treats one request."""

    kind: str  # "pass", "deny", "join" (read fn_index first), "question" or "event"
    mount: MountPolicy | None = None
    lease: str = "job"  # "job": the handler returns the lease; "request": the edge does


def request_ip(request: Any, trusted_proxies: str) -> str:
    """Return the visitor's IP for a Starlette or Gradio request ("" without one)."""
    if request is None:
        return ""
    host = request.client.host if getattr(request, "client", None) else ""
    headers = getattr(request, "headers", None) or {}
    return client_ip(host, headers.get("x-forwarded-for"), trusted_proxies)


def busy_body(retry_after_s: int = BUSY_RETRY_S) -> dict[str, Any]:
    """Return the JSON of a question the full queue turned away: the answer object, plus
    `detail` for Gradio (what to do, not how full the queue is)."""
    text = templates()["messages"]["busy"]
    body = Answer(text=text, kind="busy", refused=True).to_json()
    return {**body, "detail": text, "retry_after_s": retry_after_s}


def rate_limited_body(retry_after_s: int) -> dict[str, Any]:
    """Return the JSON of a refused question: the answer object, plus `detail` for Gradio."""
    text = templates()["messages"]["rate_limited"]
    body = Answer(text=text, kind="rate_limited", refused=True).to_json()
    return {**body, "detail": text, "retry_after_s": retry_after_s}


async def reply(send: Send, status: int, body: dict[str, Any],
                headers: dict[str, str] | None = None) -> None:
    """Send a complete JSON response."""
    data = json.dumps(body, ensure_ascii=False).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
           *((k.encode(), v.encode()) for k, v in (headers or {}).items())]
    if status in (413, 429):
        raw.append((b"connection", b"close"))  # do not read what the client still sends
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


@dataclass
class _BodyCap:
    """Wraps receive/send: cuts a streamed body off at the cap and answers 413 instead."""

    receive_: Receive
    send_: Send
    cap: int
    seen: int = 0
    tripped: bool = False
    started: bool = False

    async def receive(self) -> dict:
        if self.tripped:
            return {"type": "http.disconnect"}
        message = await self.receive_()
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.cap:
                self.tripped = True
                if not self.started:
                    self.started = True
                    await reply(self.send_, 413, _too_large(self.cap))
                return {"type": "http.disconnect"}  # the app stops reading and gives up
        return message

    async def send(self, message: dict) -> None:
        if self.tripped:
            return  # the 413 has been sent; whatever the app says after it is dropped
        if message["type"] == "http.response.start":
            self.started = True
        await self.send_(message)


def _too_large(cap: int) -> dict[str, Any]:
    return {"detail": f"Request body too large: at most {cap:,} bytes are accepted."}


async def read_body(receive: Receive, cap: int) -> bytes | None:
    """Read a whole request body; None if it is larger than `cap` or the client left."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """Return a receive() that yields an already read body, then waits for the disconnect."""
    done = False

    async def again() -> dict:
        nonlocal done
        if not done:
            done = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


@dataclass
class Edge:
    """The ASGI middleware described in this module's docstring."""

    app: Any
    origins: list[str]
    mounts: list[MountPolicy]
    admission: Admission
    settings: Any
    router: Any = None  # the parent app's router: its own routes are never Gradio's
    questions: frozenset[str] = frozenset({"/api/ask"})  # parent routes that are questions
    hash_ip: Callable[[str], str] | None = None  # names clients in the access log
    _warned: bool = False

    def __post_init__(self) -> None:
        self.mounts = sorted(self.mounts, key=lambda m: -len(m.prefix))
        self._roots = {m.prefix.rstrip("/") + "/" for m in self.mounts}
        #: Per client, events admitted but not yet in a queue (their join is still running):
        #: counted with the queued ones, so a client's parallel joins cannot all pass the
        #: per-client cap before any of them is queued.
        self._joining: dict[str, int] = {}

    async def __call__(self, scope: dict, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope = drop_forwarded(scope, self.settings.trusted_proxies)
        send = self._with_headers(scope, send)
        if scope["path"] in self._roots and scope.get("query_string"):
            # Gradio's page route takes `page` (multipage apps) and fails on ours; the chat's
            # load handler reads ?page= from the events the browser sends instead.
            scope = {**scope, "query_string": drop_query_param(scope["query_string"], "page")}
        cap = self.settings.max_request_bytes
        if _content_length(scope) > cap:
            await reply(send, 413, _too_large(cap))
            return
        route = self.classify(scope)
        if route.kind == "deny":
            await reply(send, 404, {"detail": "Not Found"})
            return
        if route.kind == "pass":
            capped = _BodyCap(receive, send, cap)
            await self.app(scope, capped.receive, capped.send)
            return
        body = await read_body(receive, cap)
        if body is None:
            await reply(send, 413, _too_large(cap))
            return
        await self._question(scope, replay(body, receive), send, route, body)

    def classify(self, scope: dict) -> Route:
        """Decide how to treat a request from its method and path alone."""
        method, path = scope["method"], scope["path"]
        if self._is_parent_route(scope):
            return Route("question", lease="request") if (
                method == "POST" and path in self.questions) else Route("pass")
        mount = next((m for m in self.mounts if m.relative(path) is not None), None)
        if mount is None or method == "OPTIONS":  # CORS preflights are answered by CORS
            return Route("pass")
        rel = mount.relative(path) or "/"
        for methods, pattern in _GRADIO_ROUTES:
            match = pattern.fullmatch(rel)
            if match is None or method not in methods:
                continue
            api = match.groupdict().get("api")
            if api is not None and api not in mount.apis:
                return Route("deny")
            if rel == _JOIN:
                return Route("join", mount)
            if rel == _CANCEL:
                return Route("event", mount)
            if method == "POST" and api in mount.question_apis:
                return Route("question", mount)
            return Route("pass", mount)
        log.debug("refused %s %s (not a route the pages use)", method, path)
        return Route("deny")

    def _is_parent_route(self, scope: dict) -> bool:
        if self.router is None:
            return False
        for route in self.router.routes:
            if not isinstance(route, Mount) and route.matches(scope)[0] != Match.NONE:
                return True
        return False

    async def _question(self, scope: dict, receive: Receive, send: Send, route: Route,
                        body: bytes) -> None:
        fn_index = _fn_index(body) if route.kind == "join" else None
        if route.kind == "join":
            assert route.mount is not None
            if fn_index not in route.mount.events:
                await reply(send, 404, {"detail": f"No event {fn_index!r} on this page."})
                return
        ip = self.client(scope)
        if route.mount is not None:  # an event entering (or cancelling one in) a page's queue
            refusal = self.admission.admit_event(ip, self.queued(ip) + self._joining.get(ip, 0))
            if refusal is not None:
                await reply(send, 429, rate_limited_body(refusal.retry_after_s),
                            {"retry-after": str(refusal.retry_after_s)})
                return
            send = _busy_instead_of_503(send)
            if route.kind == "event" or (route.kind == "join" and fn_index
                                         not in route.mount.question_events):
                await self._joined(ip, scope, receive, send)
                return
        refusal = self.admission.admit(ip)
        if refusal is not None:
            await reply(send, 429, rate_limited_body(refusal.retry_after_s),
                        {"retry-after": str(refusal.retry_after_s)})
            return
        if route.lease == "request":
            try:
                await self.app(scope, receive, send)
            finally:
                self.admission.release(ip)
            return
        send = self._release_on_error(send, ip)
        if route.mount is not None:
            await self._joined(ip, scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _joined(self, ip: str, scope: dict, receive: Receive, send: Send) -> None:
        """Pass a join on, holding the client's place until Gradio has queued (or refused)
        it: the check above and the queueing are one step for the client's other joins."""
        self._joining[ip] = self._joining.get(ip, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self._joining.get(ip, 1) - 1
            if left > 0:
                self._joining[ip] = left
            else:
                self._joining.pop(ip, None)

    def queued(self, ip: str) -> int:
        """Return how many events the client has waiting or running in the pages' queues."""
        trusted = self.settings.trusted_proxies
        return sum(1 for mount in self.mounts for event in mount.queued_events()
                   if request_ip(getattr(event, "request", None), trusted) == ip)

    def _release_on_error(self, send: Send, ip: str) -> Send:
        """Return the lease at once when Gradio refuses the job (queue full, bad input)."""

        async def watch(message: dict) -> None:
            if message["type"] == "http.response.start" and message["status"] >= 400:
                self.admission.release(ip)
            await send(message)

        return watch

    def client(self, scope: dict) -> str:
        """Return the client's IP, from X-Forwarded-For only behind a trusted proxy."""
        peer = (scope.get("client") or ("", 0))[0]
        forwarded = _header(scope, b"x-forwarded-for")
        trusted = self.settings.trusted_proxies
        if forwarded and not self._warned and peer not in {
                p.strip() for p in trusted.split(",")}:
            self._warned = True  # once: a proxy sends it with every request
            log.warning("X-Forwarded-For from %s, which ASSISTANT_TRUSTED_PROXIES does not "
                        "name: every visitor behind it counts as one client (one rate "
                        "limit, one login lockout)", peer)
        return client_ip(peer, forwarded or None, trusted)

    def _with_headers(self, scope: dict, send: Send) -> Send:
        """Return a send() that adds the security and cache headers and logs the request; an
        HTML page without a policy of its own gets a fresh nonce on its scripts and policy."""
        path, started = scope["path"], time.perf_counter()
        nonce = secrets.token_urlsafe(18)
        extra = [(k.encode(), v.encode())
                 for k, v in security_headers(path, self.origins, nonce).items()]
        plain, page = cache_headers(path, html=False), cache_headers(path, html=True)

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                html = (_content_type(headers).startswith(b"text/html")
                        and b"content-security-policy" not in names)
                cache = page if html else plain
                headers = [(k, v) for k, v in headers if k.lower().decode() not in cache
                           or k.lower() == b"vary"]
                for name, value in cache.items():
                    headers = _add(headers, name.encode(), value.encode())
                message["headers"] = headers + [(k, v) for k, v in extra if k not in names]
                self._log_access(scope, message["status"], started)
            await send(message)

        return patch_html(send_with_headers, lambda body: add_nonce(body, nonce),
                          when=lambda headers: b"content-security-policy" not in headers)

    def _log_access(self, scope: dict, status: int, started: float) -> None:
        if not access_log.isEnabledFor(logging.INFO):
            return
        ip = client_ip((scope.get("client") or ("", 0))[0], _header(scope, b"x-forwarded-for")
                       or None, self.settings.trusted_proxies)
        who = self.hash_ip(ip)[:12] if self.hash_ip and ip else "-"
        access_log.info('%s "%s %s" %d %.0f ms', who or "-", scope["method"], scope["path"],
                        status, (time.perf_counter() - started) * 1000)


def _content_type(headers: list[tuple[bytes, bytes]]) -> bytes:
    return next((v for k, v in headers if k.lower() == b"content-type"), b"")


def _add(headers: list[tuple[bytes, bytes]], name: bytes, value: bytes) -> list:
    """Return headers with one set (a Vary is extended, not replaced)."""
    if name != b"vary":
        return [*headers, (name, value)]
    old = [v for k, v in headers if k.lower() == b"vary"]
    merged = b", ".join([*old, value]) if old else value
    return [(k, v) for k, v in headers if k.lower() != b"vary"] + [(b"vary", merged)]


def _busy_instead_of_503(send: Send) -> Send:
    """Return a send() that turns Gradio's 503 (its queue is full: "Max size is 64 and size
    is 64") into the busy answer with Retry-After."""
    replaced = False

    async def watch(message: dict) -> None:
        nonlocal replaced
        if message["type"] == "http.response.start" and message["status"] == 503:
            replaced = True
            await reply(send, 503, busy_body(), {"retry-after": str(BUSY_RETRY_S)})
            return
        if not replaced:
            await send(message)

    return watch


def _header(scope: dict, name: bytes) -> str:
    for key, value in scope.get("headers") or []:
        if key == name:
            return value.decode("latin-1")
    return ""


def _content_length(scope: dict) -> int:
    try:
        return int(_header(scope, b"content-length") or 0)
    except ValueError:
        return 0


def _fn_index(body: bytes) -> Any:
    try:
        data = json.loads(body)
    except ValueError:
        return None
    value = data.get("fn_index") if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
