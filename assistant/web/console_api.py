"""The console's JSON routes for signed-in scripts: CSV exports, the Overview's figures,
staff answers and the inbox, under the console's prefix (`/admin`).

Every route checks the session itself; `auth.ConsoleGate` in front refuses anyone signed out
and any change that is not JSON from the console's origin with the session's CSRF token.
Bodies are parsed strictly (a body cut short, NaN, 1e400 get 400) and ids in paths must be
whole numbers SQLite can hold (else 422 naming the field): odd input never gets a 500.

Example:
    >>> app.include_router(staff_routes(store, assistant, auth, "/admin"))
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse

from .. import overview, staff
from ..logdb import MAX_ROW_ID
from ..views import VIEWS
from .auth import ConsoleAuth

if TYPE_CHECKING:
    from ..chain import Assistant
    from ..store import Store

#: A row id in a route's path: a whole number SQLite can hold (else 422, naming it).
RowId = Annotated[int, Path(ge=0, le=MAX_ROW_ID, description="The row's id.")]


def wants_emails(request: Request) -> bool:
    """Return whether an export asks for the private columns (`?emails=1`)."""
    return request.query_params.get("emails", "").lower() in ("1", "true", "yes")


def export_routes(store: Store, auth: ConsoleAuth, prefix: str) -> APIRouter:
    """Return the route that streams a view as CSV to a signed-in user (emails left out
    unless the URL asks for them with `?emails=1`)."""
    router = APIRouter(prefix=prefix, include_in_schema=False)

    @router.get("/export/{name}.csv")
    def export(name: str, request: Request) -> StreamingResponse:
        if auth.request_user(request) is None:
            raise HTTPException(401, "Sign in to the support console first.")
        if name not in VIEWS:
            raise HTTPException(404, f"No view {name!r}.")
        # Emails (the inbox's) only when asked for: ?emails=1.
        return StreamingResponse(
            store.iter_csv(name, private=wants_emails(request)),
            media_type="text/csv; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="{name}.csv"',
                     "cache-control": "no-store"})

    return router


def overview_routes(store: Store, auth: ConsoleAuth, prefix: str, titles: dict[str, str],
                    health: Callable[[], Any] | None = None) -> APIRouter:
    """Return the signed-in routes of the Overview's figures: JSON, and per day as CSV."""
    router = APIRouter(prefix=f"{prefix}/api", include_in_schema=False)
    private = {"cache-control": "no-store"}

    def figures(request: Request) -> overview.Overview:
        if auth.request_user(request) is None:
            raise HTTPException(401, "Sign in to the support console first.")
        return overview.compute(store.path, titles=titles, health=health)

    @router.get("/overview")
    def as_json(request: Request) -> JSONResponse:
        return JSONResponse(figures(request).to_json(), headers=private)

    @router.get("/overview.csv")
    def as_csv(request: Request) -> PlainTextResponse:
        return PlainTextResponse(figures(request).to_csv(), media_type="text/csv; charset=utf-8",
                                 headers={**private, "content-disposition":
                                          'attachment; filename="overview.csv"'})

    return router


async def json_object(request: Request) -> dict[str, Any]:
    """Return a route's JSON body as an object, or raise 400 saying what to send (a body cut
    short, NaN, 1e400 or a list is not one)."""
    try:
        body = json.loads(await request.body() or b"null", parse_constant=_not_a_number,
                          parse_float=_finite)
    except (ValueError, RecursionError):
        body = None
    if not isinstance(body, dict):
        raise HTTPException(400, "Send a JSON object (numbers must be finite).")
    return body


def _not_a_number(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


def staff_routes(store: Store, assistant: Assistant, auth: ConsoleAuth,
                 prefix: str) -> APIRouter:
    """Return the signed-in routes that add, publish, unpublish and export staff answers."""
    router = APIRouter(prefix=f"{prefix}/staff", include_in_schema=False)

    def signed_in(request: Request) -> str:
        user = auth.request_user(request)
        if user is None:
            raise HTTPException(401, "Sign in to the support console first.")
        return user

    def run(action: Any) -> JSONResponse:
        try:
            entry = action()
        except staff.StaffEntryError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(dataclasses.asdict(entry), headers={"cache-control": "no-store"})

    @router.post("")
    async def add(request: Request) -> JSONResponse:
        user = signed_in(request)
        body = await json_object(request)
        entry = run(lambda: store.add_staff_entry(
            body.get("question", ""), body.get("answer", ""), body.get("slug", ""), user,
            assistant.corpus))
        if entry.status_code == 200 and body.get("publish"):
            entry_id = json.loads(entry.body)["id"]
            return run(lambda: staff.publish(store, assistant.index, assistant.retriever,
                                             assistant.corpus, entry_id))
        return entry

    @router.post("/{entry_id}/publish")
    def publish(entry_id: RowId, request: Request) -> JSONResponse:
        signed_in(request)
        return run(lambda: staff.publish(store, assistant.index, assistant.retriever,
                                         assistant.corpus, entry_id))

    @router.post("/{entry_id}/unpublish")
    def unpublish(entry_id: RowId, request: Request) -> JSONResponse:
        signed_in(request)
        return run(lambda: staff.unpublish(store, assistant.index, assistant.retriever,
                                           entry_id))

    @router.get("/patch.yaml")
    def patch(request: Request) -> PlainTextResponse:
        signed_in(request)
        return PlainTextResponse(staff.yaml_patch(store.staff_entries(status="published")),
                                 media_type="text/yaml; charset=utf-8",
                                 headers={"cache-control": "no-store"})

    return router


def inbox_routes(store: Store, auth: ConsoleAuth, prefix: str) -> APIRouter:
    """Return the signed-in routes that list, answer and delete support requests."""
    router = APIRouter(prefix=f"{prefix}/inbox", include_in_schema=False)
    private = {"cache-control": "no-store"}

    def signed_in(request: Request) -> str:
        user = auth.request_user(request)
        if user is None:
            raise HTTPException(401, "Sign in to the support console first.")
        return user

    @router.get("")
    def listing(request: Request, status: str | None = None) -> JSONResponse:
        signed_in(request)
        return JSONResponse([dataclasses.asdict(h) for h in store.handoffs(status=status)],
                            headers=private)

    @router.post("/{handoff_id}/answer")
    async def answer(handoff_id: RowId, request: Request) -> JSONResponse:
        user = signed_in(request)
        body = await json_object(request)
        try:
            handoff = store.answer_handoff(handoff_id, str(body.get("reply") or ""), user)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(dataclasses.asdict(handoff), headers=private)

    @router.post("/{handoff_id}/delete")
    def delete(handoff_id: RowId, request: Request) -> JSONResponse:
        signed_in(request)
        return JSONResponse({"deleted": store.delete_handoff(handoff_id)}, headers=private)

    @router.post("/forget")
    async def forget(request: Request) -> JSONResponse:
        signed_in(request)
        body = await json_object(request)
        try:
            changed = store.forget_email(str(body.get("email") or ""))
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"changed": changed}, headers=private)

    return router
