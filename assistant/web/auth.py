"""Signing in to the support console: sessions that expire, sign-out, brakes on guessing.

The console's own routes (`/admin/login`, `/admin/logout`) set and clear an HttpOnly,
SameSite=Strict cookie that names a server-side session; sessions end after
`console_session_hours`. `ConsoleGate` keeps every other `/admin` path behind a session, and the
same check is given to Gradio as its `auth_dependency`, so the console's token is never in a
place page scripts can read (Gradio's `/token` route is refused by the edge).

Example:
    >>> auth = ConsoleAuth("s3cret", session_s=8 * 3600)
    >>> token, wait = auth.login("admin", "s3cret", client="203.0.113.9")
    >>> auth.user(token)
    'admin'
"""

from __future__ import annotations

import html
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ..limits import LoginGuard
from .edge import reply, request_ip
from .render import static_path

COOKIE = "assistant-console"
USER = "admin"
#: Sessions held at most; the oldest is dropped first (a restart signs everyone out anyway).
MAX_SESSIONS = 1000


class ConsoleAuth:
    """The console's sign-ins: credential checks with brakes, and sessions that expire."""

    def __init__(self, password: str, *, session_s: float = 8 * 3600,
                 guard: LoginGuard | None = None, clock: Callable[[], float] = time.monotonic):
        self.password = password
        self.session_s = session_s
        self.guard = guard or LoginGuard(password)
        self.clock = clock
        self._sessions: dict[str, float] = {}  # token -> when it expires
        self._lock = threading.Lock()

    def login(self, username: str, password: str, client: str) -> tuple[str | None, float]:
        """Return (session token, 0) for the right credentials; (None, seconds to wait) if
        the client or everyone is braked; (None, 0) for wrong credentials."""
        wait = self.guard.retry_after(client)
        if wait > 0:
            return None, wait
        if not (self.password and self.guard.check(username, password, client)):
            return None, 0.0
        token = secrets.token_urlsafe(32)
        with self._lock:
            if len(self._sessions) >= MAX_SESSIONS:
                del self._sessions[min(self._sessions, key=self._sessions.__getitem__)]
            self._sessions[token] = self.clock() + self.session_s
        return token, 0.0

    def user(self, token: str | None) -> str | None:
        """Return the user a session token signs in, or None (unknown or expired)."""
        if not token:
            return None
        with self._lock:
            expires = self._sessions.get(token)
            if expires is None:
                return None
            if self.clock() >= expires:
                del self._sessions[token]
                return None
        return USER

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
                              else JSONResponse({"success": True}))
        response.set_cookie(COOKIE, token, max_age=int(auth.session_s), path=prefix,
                            httponly=True, samesite="strict",
                            secure=_over_https(request, trusted_proxies))
        return response

    @router.api_route("/logout", methods=["GET", "POST"])
    def logout(request: Request) -> Response:
        auth.logout(request.cookies.get(COOKIE))
        response = RedirectResponse(prefix + "/login", 303)
        response.delete_cookie(COOKIE, path=prefix)
        return response

    return router


class ConsoleGate:
    """ASGI middleware: every path under the console's prefix needs a session, except the
    sign-in and sign-out routes; a browser without one is sent to the sign-in form."""

    def __init__(self, app: Any, auth: ConsoleAuth, prefix: str = "/admin"):
        self.app = app
        self.auth = auth
        self.prefix = prefix
        self.open = {f"{prefix}/login", f"{prefix}/logout"}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if (scope["type"] != "http" or path in self.open
                or not (path == self.prefix or path.startswith(self.prefix + "/"))):
            await self.app(scope, receive, send)
            return
        if self.auth.request_user(Request(scope)) is not None:
            await self.app(scope, receive, send)
            return
        if scope["method"] in ("GET", "HEAD") and path in (self.prefix, self.prefix + "/"):
            await RedirectResponse(self.prefix + "/login", 303)(scope, receive, send)
            return
        await reply(send, 401, {"detail": "Sign in to the support console first.",
                                "login": self.prefix + "/login"})
