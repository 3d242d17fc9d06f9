"""A plain JSON API for a site's own backend: `POST /api/ask` -> the `ask --json` object, and
`POST /api/handoff`, a question for a person (the console's inbox).

One request, one JSON answer: no queue to join, no event stream to read. The input is
checked by pydantic (HTTP 422 names the field), the edge refuses a body over the cap (413) and
questions over the client's limits (429 with Retry-After), and at most `concurrency` answers
are computed at once with `queue_size` waiting (503 beyond that). FastAPI describes it in
the app's OpenAPI schema at `/api/openapi.json`.

Example:
    >>> httpx.post("http://127.0.0.1:7860/api/ask", json={"question": "what is rdma?"}).json()
    {'answer': '...', 'citations': [...], ..., 'kind': 'answer'}
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal

import anyio
from fastapi import APIRouter, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ..answer import Answer
from ..compose import templates
from ..handoff import MAX_EMAIL, HandoffError, Inbox, thanks
from .edge import request_ip

if TYPE_CHECKING:
    from ..chain import Assistant
    from ..config import Settings
    from ..store import Store


class HistoryMessage(BaseModel):
    """One earlier turn of the conversation."""

    model_config = ConfigDict(extra="ignore")
    role: Literal["user", "assistant"]
    content: str


class AskRequest(BaseModel):
    """A question, the conversation before it and the page being read."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"question": "is it expensive?", "history": [], "page": "nvlink"}]})
    question: str = Field(description="The question, in plain words (at most "
                                      "ASSISTANT_MAX_QUESTION_CHARS characters are answered).")
    history: list[HistoryMessage] = Field(default_factory=list, max_length=200,
                                          description="Earlier messages, oldest first.")
    page: str | None = Field("", description="Slug of the glossary page being read, or empty.")


class HandoffBody(BaseModel):
    """A question for a person, with an optional email for the reply."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"question": "Does our switch support RoCE?", "email": "ana@example.com",
         "history": [], "page": "roce"}]})
    question: str = Field(description="The question for support (at most "
                                      "ASSISTANT_MAX_QUESTION_CHARS characters).")
    email: str | None = Field(None, description=f"Where to reply (at most {MAX_EMAIL} "
                                                "characters); stored only with this request "
                                                "and deleted after ASSISTANT_RETENTION_DAYS.")
    history: list[HistoryMessage] = Field(default_factory=list, max_length=200,
                                          description="The conversation so far, oldest first "
                                                      "(clipped to its newest part).")
    page: str | None = Field("", description="Slug of the glossary page being read, or empty.")


class HandoffOut(BaseModel):
    """A stored request: its id in the inbox and the thank-you to show."""

    id: int
    status: str
    message: str


class CitationOut(BaseModel):
    """A numbered source of the answer."""

    n: int
    slug: str
    title: str
    url: str
    section: str


class ToolCallOut(BaseModel):
    """A calculator the assistant called."""

    name: str
    args: dict[str, Any]
    result: dict[str, Any]


class AskResponse(BaseModel):
    """The answer: the same object as `python -m assistant ask --json`."""

    answer: str
    citations: list[CitationOut]
    tool_calls: list[ToolCallOut]
    refused: bool
    retrieved: list[str]
    timings_ms: dict[str, float]
    kind: str = Field(description="answer, comparison, calculation, clarify, refusal, message, "
                                  "rate_limited or busy")


class Refused(AskResponse):
    """A question that was not answered (429, 503), with what the client should do."""

    detail: str
    retry_after_s: int | None = None


class Problem(BaseModel):
    """An error without an answer (413)."""

    detail: str


def json_safe(value: Any) -> Any:
    """Return a value JSON can carry: NaN and the infinities (which Python's parser reads
    from `NaN`, `Infinity` or `1e400`) become the strings "NaN", "Infinity", "-Infinity"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


async def validation_problem(request: Request, exc: Exception) -> JSONResponse:
    """Answer a request FastAPI could not validate with 422 naming the field, whatever the
    input was (FastAPI's own handler fails with a 500 echoing a non-finite number)."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    return JSONResponse({"detail": json_safe(jsonable_encoder(errors))}, 422)


class JsonApi:
    """The `/api` routes: answers in a bounded thread pool, logged like the chat's."""

    def __init__(self, assistant: Assistant, store: Store, settings: Settings,
                 inbox: Inbox | None = None):
        self.assistant = assistant
        self.store = store
        self.settings = settings
        self.inbox = inbox or Inbox(store, settings)
        self.limiter = anyio.CapacityLimiter(settings.concurrency)
        self.waiting = 0

    def answer(self, body: AskRequest, ip: str) -> Answer:
        """Answer and log one question (runs in a worker thread)."""
        page = body.page if body.page in self.assistant.corpus.pages else None
        history = [m.model_dump() for m in body.history]
        answer = self.assistant.ask(body.question, history=history, page=page)
        self.store.log(body.question, answer, session="api", ip=ip, page=page)
        return answer

    async def ask(self, body: AskRequest, request: Request) -> Any:
        """Answer one question: `history` is the conversation so far, `page` a glossary slug."""
        if self.waiting >= self.settings.queue_size + self.settings.concurrency:
            text = templates()["messages"]["busy"]
            busy = Answer(text=text, kind="busy", refused=True).to_json()
            return JSONResponse({**busy, "detail": text, "retry_after_s": 5}, 503,
                                headers={"retry-after": "5"})
        ip = request_ip(request, self.settings.trusted_proxies)
        self.waiting += 1
        try:
            answer = await anyio.to_thread.run_sync(self.answer, body, ip,
                                                    limiter=self.limiter)
        finally:
            self.waiting -= 1
        return answer.to_json()

    def handoff(self, body: HandoffBody) -> Any:
        """Send a question to support (the console's inbox, and the webhook if one is set)."""
        page = body.page if body.page in self.assistant.corpus.pages else ""
        try:
            handoff = self.inbox.submit(body.question, body.email,
                                        [m.model_dump() for m in body.history],
                                        session="api", page=page)
        except HandoffError as exc:
            return JSONResponse({"detail": str(exc)}, 400)
        return HandoffOut(id=handoff.id, status=handoff.status, message=thanks(handoff.email))

    def router(self) -> APIRouter:
        """Return the routes, described for FastAPI's OpenAPI schema."""
        router = APIRouter(prefix="/api", tags=["ask"])
        router.add_api_route(
            "/ask", self.ask, methods=["POST"], response_model=AskResponse,
            summary="Answer one question", responses={
                413: {"model": Problem, "description": "The request body is over "
                      "ASSISTANT_MAX_REQUEST_BYTES."},
                429: {"model": Refused, "description": "Over the client's rate or concurrency "
                      "limit; `kind` is rate_limited. See the Retry-After header."},
                503: {"model": Refused, "description": "The server is at capacity; `kind` is "
                      "busy. See the Retry-After header."}})
        router.add_api_route(
            "/handoff", self.handoff, methods=["POST"], response_model=HandoffOut,
            summary="Ask a person", responses={
                400: {"model": Problem, "description": "An empty or too long question, or a "
                      "malformed email; `detail` says which."},
                429: {"model": Problem, "description": "Over the client's rate limit (counted "
                      "with its questions). See the Retry-After header."}})
        return router
