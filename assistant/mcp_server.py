"""The glossary as an MCP server, for AI clients (IDEs, desktop assistants, agents).

Built on the official Python SDK's low-level `Server` (package `mcp`), because the tools are
generated: besides `ask`, `search_glossary` and `get_page`, every calculator of the registry
(assistant/calculators) is a tool, with its input model's JSON schema and the first sentence
of its description, so a new calculator is served with no code here. Each page is a resource
at `glossary://page/<slug>` (calculators at `glossary://calculator/<name>`), as Markdown.

Two transports: streamable HTTP mounted on the app at `/mcp` (stateless, JSON responses; the
edge caps the body like `/api/ask`'s, and `ask`/`search_glossary` go through the same per-client
admission, with the client's IP read under the same trusted-proxy rule), and stdio for local
clients (`python -m assistant mcp`). Arguments are checked by pydantic models; a bad one comes
back as a tool error (`isError`) naming the argument, never a traceback. `ask` returns the
`/api/ask` object, citations with absolute URLs, and is logged like the API's questions
(session "mcp").

Example:
    >>> glossary = GlossaryMcp(Assistant())
    >>> async with mcp.Client(glossary.server()) as client:       # in-process, for tests
    ...     await client.call_tool("gpu_hour_cost", {"gpus": 8, "price_per_gpu_hour": 2,
    ...                                              "hours": 10})
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import calculators as calc
from .answer import Answer
from .compose import templates
from .limits import Admission, client_ip
from .quantities import json_safe
from .site import Site, calculator_slug
from .site.llms import absolute, calculator_markdown, page_markdown, sections

if TYPE_CHECKING:
    from .chain import Assistant
    from .config import Settings
    from .store import Store

log = logging.getLogger(__name__)

SERVER_NAME = "ai-compute-glossary"
PAGE_URI = "glossary://page/"
CALCULATOR_URI = "glossary://calculator/"
MAX_RESULTS = 20


class ToolFailed(Exception):
    """A call that cannot be answered: its message goes back to the client as a tool error."""


class HistoryTurn(BaseModel):
    """One earlier message of the conversation."""

    model_config = ConfigDict(extra="ignore")
    role: Literal["user", "assistant"]
    content: str


class AskArgs(BaseModel):
    """The arguments of `ask`: those of POST /api/ask."""

    model_config = ConfigDict(extra="forbid")
    question: str = Field(description="The question, in plain words.")
    history: list[HistoryTurn] = Field(default_factory=list, max_length=200,
                                       description="Earlier messages, oldest first.")
    page: str = Field("", description="Slug of the glossary page the user is reading, or "
                                      "empty: 'is it expensive?' then means that page's term.")


class SearchArgs(BaseModel):
    """The arguments of `search_glossary`."""

    model_config = ConfigDict(extra="forbid")
    query: str = Field(min_length=1, description="Words to look for, e.g. 'lossless ethernet'.")
    limit: int = Field(5, ge=1, le=MAX_RESULTS, description="Most pages returned.")


class PageArgs(BaseModel):
    """The arguments of `get_page`."""

    model_config = ConfigDict(extra="forbid")
    slug: str = Field(description="The page's slug, e.g. 'nvlink' (search_glossary gives it).")


@dataclass(frozen=True)
class Caller:
    """Who is calling, over which transport: the client's IP and the base of absolute URLs."""

    ip: str
    base: str


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, one-line description, argument model and the function that runs it."""

    name: str
    description: str
    inputs: type[BaseModel]
    run: Callable[[Any, Caller], tuple[str, dict[str, Any]]]  # -> (text, structured content)
    admitted: bool = False  # counted against the client's question limits

    def tool(self) -> types.Tool:
        """Describe the tool for tools/list."""
        return types.Tool(name=self.name, description=self.description,
                          input_schema=self.inputs.model_json_schema())


def one_line(text: str) -> str:
    """Return the first sentence of a description, on one line."""
    flat = " ".join(text.split("\n\n")[0].split())
    head, dot, _ = flat.partition(". ")
    return head + "." if dot else flat


def argument_problems(exc: ValidationError) -> str:
    """Say which arguments are wrong and why, one per clause."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        got = f" (got {err['input']!r})" if err.get("type") != "missing" else ""
        parts.append(f"{where}: {err.get('msg', 'invalid')}{got}")
    return "; ".join(parts)


class GlossaryMcp:
    """The MCP server of one assistant; see the module docstring."""

    def __init__(self, assistant: Assistant, store: Store | None = None,
                 settings: Settings | None = None, *, admission: Admission | None = None,
                 limiter: anyio.CapacityLimiter | None = None):
        self.assistant = assistant
        self.store = store
        self.settings = settings or assistant.settings
        self.admission = admission
        self.limiter = limiter
        self.site = Site(assistant.corpus)

    # -- the tools --------------------------------------------------------------------------

    @cached_property
    def tools(self) -> dict[str, ToolSpec]:
        """Every tool by name: the three of the glossary, then one per calculator."""
        specs = [
            ToolSpec("ask", "Answer a question about AI compute networking from the glossary, "
                     "with numbered citations (absolute URLs); refused=true when the glossary "
                     "does not cover it.", AskArgs, self._ask, admitted=True),
            ToolSpec("search_glossary", "Rank glossary pages and lessons for a query, each with "
                     "its summary and URL.", SearchArgs, self._search, admitted=True),
            ToolSpec("get_page", "Return one glossary page or lesson as Markdown, with its "
                     "sections and their URLs.", PageArgs, self._page),
        ]
        for name, spec in calc.REGISTRY.items():
            specs.append(ToolSpec(name, one_line(spec.description), spec.inputs,
                                  self._calculator(spec)))
        return {s.name: s for s in specs}

    def _ask(self, args: AskArgs, caller: Caller) -> tuple[str, dict[str, Any]]:
        page = args.page if args.page in self.assistant.corpus.pages else None
        answer = self.assistant.ask(args.question, history=[t.model_dump() for t in args.history],
                                    page=page)
        if self.store is not None:
            self.store.log(args.question, answer, session="mcp", ip=caller.ip, page=page)
        data = answer.to_json()
        for cite in data["citations"]:
            cite["url"] = absolute(caller.base, cite["url"])
        sources = "".join(f"\n[{c['n']}] {c['title']}: {c['url']}" for c in data["citations"])
        return data["answer"] + ("\n\nSources:" + sources if sources else ""), data

    def _search(self, args: SearchArgs, caller: Caller) -> tuple[str, dict[str, Any]]:
        found = self.assistant.retriever.retrieve(args.query, k=args.limit)
        corpus = self.assistant.corpus.pages
        results = [{"slug": h.slug, "title": h.title, "kind": h.kind,
                    "summary": corpus[h.slug].summary if h.slug in corpus else "",
                    "url": absolute(caller.base, h.url), "score": round(h.score, 4)}
                   for h in found.hits[:args.limit]]
        text = "\n".join(f"{i}. {r['title']} ({r['url']}): {r['summary']}"
                         for i, r in enumerate(results, 1)) or "No page matches."
        return text, {"query": args.query, "results": results}

    def _page(self, args: PageArgs, caller: Caller) -> tuple[str, dict[str, Any]]:
        page = self.assistant.corpus.get(args.slug.strip().casefold())
        if page is None:
            raise ToolFailed(f"No page with the slug {args.slug!r}; search_glossary finds "
                             f"pages and gives their slugs.")
        markdown = page_markdown(self.site, page, caller.base)
        parts = [{"anchor": s.anchor, "title": s.title,
                  "url": absolute(caller.base, self.site.page_url(page, s.title)
                                  if s.anchor != "intro" else self.site.page_url(page))}
                 for s in sections(page)]
        return markdown, {"slug": page.slug, "title": page.title, "kind": page.kind,
                          "summary": page.summary,
                          "url": absolute(caller.base, self.site.page_url(page)),
                          "sections": parts, "markdown": markdown}

    def _calculator(self, spec: calc.Calculator) -> Callable[[Any, Caller], Any]:
        def run(args: BaseModel, caller: Caller) -> tuple[str, dict[str, Any]]:
            try:
                result = spec.function(**args.model_dump())
            except calc.CalculatorError as exc:
                raise ToolFailed(str(exc)) from exc
            figures = json_safe(result.to_dict())
            return result.summary, {**figures, "method": absolute(
                caller.base, self.site.url(f"/calculators/{calculator_slug(spec.name)}"))}
        return run

    # -- protocol handlers ------------------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[s.tool() for s in self.tools.values()])

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams
                         ) -> types.CallToolResult:
        arguments = params.arguments or {}
        caller = self.caller(getattr(ctx, "request", None))
        try:
            return await self.call(params.name, arguments, caller)
        except ToolFailed as exc:
            return _error(str(exc))

    async def call(self, name: str, arguments: dict[str, Any], caller: Caller
                   ) -> types.CallToolResult:
        """Check the arguments, admit the call and run the tool (in a worker thread)."""
        spec = self.tools.get(name)
        if spec is None:
            raise ToolFailed(f"Unknown tool {name!r}; the tools are {', '.join(self.tools)}.")
        size = len(json.dumps(arguments, ensure_ascii=False).encode())
        if size > self.settings.max_request_bytes:
            raise ToolFailed(f"Request too large: at most {self.settings.max_request_bytes:,} "
                             f"bytes of arguments are accepted (got {size:,}).")
        try:
            args = spec.inputs.model_validate(arguments)
        except ValidationError as exc:
            raise ToolFailed(f"Invalid arguments for {name}: {argument_problems(exc)}") from exc
        admitted = spec.admitted and self.admission is not None
        if admitted:
            refusal = self.admission.admit(caller.ip)
            if refusal is not None:
                return _rate_limited(refusal.retry_after_s)
        try:
            text, data = await anyio.to_thread.run_sync(spec.run, args, caller,
                                                         limiter=self.limiter)
        finally:
            if admitted:
                self.admission.release(caller.ip)
        return types.CallToolResult(content=[types.TextContent(text=text)],
                                    structured_content=data)

    def caller(self, request: Any) -> Caller:
        """Return who calls: over HTTP the client and the app's URL, over stdio this machine."""
        s = self.settings
        if request is None or not hasattr(request, "headers"):
            return Caller("", s.site_url or f"http://{s.server_name}:{s.server_port}")
        peer = request.client.host if request.client else ""
        ip = client_ip(peer, request.headers.get("x-forwarded-for"), s.trusted_proxies)
        return Caller(ip, s.site_url or str(request.base_url).rstrip("/"))

    async def _list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        pages = [types.Resource(uri=PAGE_URI + p.slug, name=p.slug, title=p.title,
                                description=p.summary, mime_type="text/markdown")
                 for p in sorted(self.assistant.corpus, key=lambda p: p.slug)]
        calcs = [types.Resource(uri=CALCULATOR_URI + calculator_slug(name), name=name,
                                title=spec.label, description=one_line(spec.description),
                                mime_type="text/markdown")
                 for name, spec in calc.REGISTRY.items()]
        return types.ListResourcesResult(resources=pages + calcs)

    async def _read_resource(self, ctx: Any, params: types.ReadResourceRequestParams
                             ) -> types.ReadResourceResult:
        uri = str(params.uri)
        base = self.caller(getattr(ctx, "request", None)).base
        text = self.resource_text(uri, base)
        if text is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"No resource at {uri!r}; "
                           f"pages are {PAGE_URI}<slug>, calculators {CALCULATOR_URI}<name>.")
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, text=text, mime_type="text/markdown")])

    def resource_text(self, uri: str, base: str = "") -> str | None:
        """Return the Markdown of a page or calculator URI, or None if there is none."""
        if uri.startswith(PAGE_URI):
            page = self.assistant.corpus.get(uri[len(PAGE_URI):])
            return page_markdown(self.site, page, base) if page else None
        if uri.startswith(CALCULATOR_URI):
            spec = self.site.calculator_spec(uri[len(CALCULATOR_URI):])
            return calculator_markdown(self.site, spec, base) if spec else None
        return None

    # -- the server and its transports ------------------------------------------------------

    def server(self) -> Server:
        """Build the SDK's low-level server with this object's handlers."""
        return Server(SERVER_NAME, version="1", title="AI Compute Glossary",
                      instructions="Answers about AI compute networking (InfiniBand, RoCE, "
                                   "NVLink, NCCL...) and GPU cluster costs, from a curated "
                                   "glossary, with citations. Use `ask` for questions, the "
                                   "calculators for figures, get_page for a whole page.",
                      get_tool_input_schema=lambda name: (
                          self.tools[name].inputs.model_json_schema()
                          if name in self.tools else None),
                      on_list_tools=self._list_tools, on_call_tool=self._call_tool,
                      on_list_resources=self._list_resources,
                      on_read_resource=self._read_resource)

    def http_endpoint(self) -> Any:
        """Return the streamable HTTP endpoint (ASGI) and its session manager, to run in the
        app's lifespan: stateless and JSON, so each POST is one self-contained call."""
        from mcp.server.streamable_http_manager import (
            StreamableHTTPASGIApp,
            StreamableHTTPSessionManager,
        )

        manager = StreamableHTTPSessionManager(
            app=self.server(), json_response=True, stateless=True,
            max_request_body_size=self.settings.max_request_bytes)
        return StreamableHTTPASGIApp(manager), manager

    async def run_stdio(self) -> None:
        """Serve one client over this process's stdin and stdout until it closes them."""
        from mcp.server.stdio import stdio_server

        server = self.server()
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def _rate_limited(retry_after_s: int) -> types.CallToolResult:
    text = templates()["messages"]["rate_limited"]
    body = Answer(text=text, kind="rate_limited", refused=True).to_json()
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True,
                                structured_content={**body, "retry_after_s": retry_after_s})


