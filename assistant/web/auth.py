"""Signing in to the support console: sessions that expire, sign-out, brakes on guessing,
and changes only from the console itself.

The console's own routes (`/admin/login`, `/admin/logout`) set and clear an HttpOnly,
SameSite=Strict cookie that names a server-side session; sessions end after
`console_session_hours`. `ConsoleGate` keeps every other `/admin` path behind a session, and the
same check is given to Gradio as its `auth_dependency`, so the console's token is never in a
place page scripts can read (Gradio's `/token` route is refused by the edge).

SameSite=Strict does not stop a page on another port of the same host (same site, another
origin), so every change under `/admin` (any method but GET and HEAD, the console's own
Gradio events included) must also be JSON (`Content-Type: application/json`: no HTML form
can send that), come from the console's own origin (`Sec-Fetch-Site: same-origin`, or an
`Origin` equal to it) and carry the session's CSRF token in `X-CSRF-Token`. The console page
gets the token in a `<meta>` tag and `console.js` adds it to the page's requests; scripts get
it from the sign-in's JSON or `GET /admin/csrf`.

Example:
    >>> auth = ConsoleAuth("s3cret", session_s=8 * 3600)
    >>> token, wait = auth.login("admin", "s3cret", client="203.0.113.9")
    >>> auth.user(token)
    'admin'
"""

from __future__ import annotations

import hmac
import html
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)

from ..limits import LoginGuard
from .edge import reply, request_ip
from .policy import header, patch_html, public_origin
from .render import static_path

COOKIE = "assistant-console"
USER = "admin"
#: Sessions held at most; the oldest is dropped first (a restart signs everyone out anyway).
MAX_SESSIONS = 1000
#: The header that carries the session's CSRF token with a change.
CSRF_HEADER = "x-csrf-token"
_SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


class ConsoleAuth:
    """The console's sign-ins: credential checks with brakes, and sessions that expire."""

    def __init__(self, password: str, *, session_s: float = 8 * 3600,
                 guard: LoginGuard | None = None, clock: Callable[[], float] = time.monotonic):
        self.password = password
        self.session_s = session_s
        self.guard = guard or LoginGuard(password)
        self.clock = clock
        self._sessions: dict[str, tuple[float, str]] = {}  # token -> (expiry, CSRF token)
        self._lock = threading.Lock()

    def login(self, username: str, password: str, client: str) -> tuple[str | None, float]:
        """Return (session token, 0) for the right credentials; (None, seconds to wait) if
        the client is braked (its own failures, or failures from everywhere and one of its
        own); (None, 0) for wrong credentials."""
        wait = self.guard.retry_after(client)
        if wait > 0:
            return None, wait
        if not (self.password and self.guard.check(username, password, client)):
            # A wrong guess while everyone is braked makes this client wait at once.
            return None, self.guard.retry_after(client) if self.guard.braking() else 0.0
        token = secrets.token_urlsafe(32)
        with self._lock:
            if len(self._sessions) >= MAX_SESSIONS:
                del self._sessions[min(self._sessions, key=self._sessions.__getitem__)]
            self._sessions[token] = (self.clock() + self.session_s, secrets.token_urlsafe(32))
        return token, 0.0

    def user(self, token: str | None) -> str | None:
        """Return the user a session token signs in, or None (unknown or expired)."""
        return USER if self._session(token) is not None else None

    def _session(self, token: str | None) -> tuple[float, str] | None:
        if not token:
            return None
        with self._lock:
            session = self._sessions.get(token)
            if session is None:
                return None
            if self.clock() >= session[0]:
                del self._sessions[token]
                return None
        return session

    def csrf_token(self, token: str | None) -> str | None:
        """Return the CSRF token of a live session, or None."""
        session = self._session(token)
        return session[1] if session else None

    def check_csrf(self, token: str | None, given: str | None) -> bool:
        """Return whether `given` is the CSRF token of the live session `token`."""
        expected = self.csrf_token(token)
        return bool(expected and given) and hmac.compare_digest(
            expected.encode(), (given or "").encode("utf-8", "ignore"))

    def logout(self, token: str | None) -> None:
        """End a session."""
        with self._lock:
            self._sessions.pop(token or "", None)

    def request_user(self, request: Request) -> str | None:
        """Return the signed-in user of a request (Gradio's `auth_dependency`)."""
        return self.user(request.cookies.get(COOKIE))


def _over_https(request: Request, trusted_proxies: str) -> bool:
    """Return whether the browser sees https: directly, or as a trusted proxy says."""
    peer = request.client.host if request.client else ""
    trusted = {p.strip() for p in trusted_proxies.split(",") if p.strip()}
    forwarded = request.headers.get("x-forwarded-proto", "") if peer in trusted else ""
    return request.url.scheme == "https" or forwarded.split(",")[0].strip() == "https"


def _wants_html(request: Request) -> bool:
    return "text/html" in request.headers.get("accept", "")


def login_page(message: str = "") -> str:
    """Return the sign-in form, with a message (escaped) above it."""
    page = static_path("console-login.html").read_text(encoding="utf-8")
    shown = f'<p class="message" role="alert">{html.escape(message)}</p>' if message else ""
    return page.replace("{{message}}", shown)


def console_routes(auth: ConsoleAuth, prefix: str, trusted_proxies: str) -> APIRouter:
    """Return the sign-in and sign-out routes of the console mounted at `prefix`."""
    router = APIRouter(prefix=prefix, include_in_schema=False)

    @router.get("/login", response_class=HTMLResponse)
    def login_form() -> str:
        return login_page()

    @router.post("/login")
    async def login(request: Request) -> Response:
        form = await request.form()
        username, password = str(form.get("username", "")), str(form.get("password", ""))
        token, wait = auth.login(username.strip(), password,
                                 request_ip(request, trusted_proxies))
        if token is None:
            status, text = (429, f"Too many failed sign-ins: try again in {wait:.0f} s.") \
                if wait else (401, "Incorrect user name or password.")
            headers = {"retry-after": str(max(1, round(wait)))} if wait else None
            if _wants_html(request):
                return HTMLResponse(login_page(text), status, headers=headers)
            return JSONResponse({"detail": text}, status, headers=headers)
        response: Response = (RedirectResponse(prefix + "/", 303) if _wants_html(request)
                              else JSONResponse({"success": True,
                                                 "csrf": auth.csrf_token(token)},
                                                headers={"cache-control": "no-store"}))
        response.set_cookie(COOKIE, token, max_age=int(auth.session_s), path=prefix,
                            httponly=True, samesite="strict",
                            secure=_over_https(request, trusted_proxies))
        return response

    @router.get("/csrf")
    def csrf(request: Request) -> JSONResponse:
        token = auth.csrf_token(request.cookies.get(COOKIE))
        if token is None:  # ConsoleGate answers first; kept for an app without it
            return JSONResponse({"detail": "Sign in to the support console first."}, 401)
        return JSONResponse({"token": token, "header": "X-CSRF-Token"},
                            headers={"cache-control": "no-store"})

    @router.get("/console.js")
    def console_script(request: Request) -> Response:
        if auth.request_user(request) is None:
            return JSONResponse({"detail": "Sign in to the support console first."}, 401)
        return FileResponse(static_path("console.js"), media_type="text/javascript",
                            headers={"cache-control": "no-store"})

    @router.api_route("/logout", methods=["GET", "POST"])
    def logout(request: Request) -> Response:
        auth.logout(request.cookies.get(COOKIE))
        response = RedirectResponse(prefix + "/login", 303)
        response.delete_cookie(COOKIE, path=prefix)
        return response

    return router


class ConsoleGate:
    """ASGI middleware: every path under the console's prefix needs a session, except the
    sign-in and sign-out routes; a browser without one is sent to the sign-in form. A change
    (any method but GET and HEAD) must be JSON from the console's own origin with the
    session's CSRF token; the console page gets the token and the script that sends it."""

    def __init__(self, app: Any, auth: ConsoleAuth, prefix: str = "/admin",
                 trusted_proxies: str = ""):
        self.app = app
        self.auth = auth
        self.prefix = prefix
        self.trusted_proxies = trusted_proxies
        self.open = {f"{prefix}/login", f"{prefix}/logout"}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if (scope["type"] != "http" or path in self.open
                or not (path == self.prefix or path.startswith(self.prefix + "/"))):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        session = request.cookies.get(COOKIE)
        if self.auth.user(session) is None:
            if scope["method"] in ("GET", "HEAD") and path in (self.prefix, self.prefix + "/"):
                await RedirectResponse(self.prefix + "/login", 303)(scope, receive, send)
                return
            await reply(send, 401, {"detail": "Sign in to the support console first.",
                                    "login": self.prefix + "/login"})
            return
        if scope["method"] not in _SAFE_METHODS:
            refusal = self.refusal(scope, session)
            if refusal is not None:
                await reply(send, refusal[0], {"detail": refusal[1]},
                            {"cache-control": "no-store"})
                return
        elif path == self.prefix + "/":
            send = patch_html(send, self._page_head(session))
        await self.app(scope, receive, send)

    def refusal(self, scope: dict, session: str | None) -> tuple[int, str] | None:
        """Return (status, reason) when a change must not be made, else None."""
        kind = header(scope, b"content-type").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, ("Changes to the console take a JSON body only "
                         "(Content-Type: application/json).")
        site = header(scope, b"sec-fetch-site").lower()
        origin = header(scope, b"origin").lower().rstrip("/")
        own = public_origin(scope, self.trusted_proxies)
        if site and site != "same-origin":
            return 403, f"Cross-origin request refused (Sec-Fetch-Site: {site})."
        if not site and origin != own:
            return 403, (f"Cross-origin request refused: the Origin header must be {own} "
                         f"(got {origin or 'none'}).")
        if not self.auth.check_csrf(session, header(scope, CSRF_HEADER.encode())):
            return 403, ("Missing or wrong CSRF token: send the session's token "
                         f"(GET {self.prefix}/csrf) in X-CSRF-Token.")
        return None

    def _page_head(self, session: str | None) -> Callable[[bytes], bytes]:
        """Return the transform that gives the console page its token and script, first in
        its head so the script wraps fetch() before Gradio's own scripts run."""
        token = html.escape(self.auth.csrf_token(session) or "")
        tags = (f'<meta name="assistant-csrf" content="{token}">'
                f'<script src="{self.prefix}/console.js"></script>').encode()

        def insert(page: bytes) -> bytes:
            at = page.find(b"<head>")
            return page if at < 0 else page[:at + 6] + tags + page[at + 6:]

        return insert
