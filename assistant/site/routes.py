"""Serve the glossary site from the running app: the pages, the calculator API, the assets.

`mount_site(app, corpus)` adds the routes; call it before Gradio is mounted at "/", since a
mount at "/" answers every path that no earlier route took.

    /glossary/  /glossary/<slug>  /learn/  /learn/<slug>  /calculators/  /calculators/<name>
    /api/calculators/<name>?<input>=<value>...   (JSON, for the pages' script and static hosts)
    /site-assets/<file>                          (CSS, JS, icon)
    /llms.txt  /llms-full.txt                    (the site for language models, see llms.py)
    /search-index.json                           (the site search's index, see search.py)
    /embed-demo                                  (moved: now the NVLink page, widget included)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)

from assistant.corpus import Corpus

from .anchors import StaffAnswer
from .llms import LLMS_FULL, LLMS_TXT, llms_full, llms_txt
from .pages import (
    ASSET_FILES,
    ASSETS,
    KIND_PATHS,
    PAGE_CSP,
    Site,
    asset_text,
    asset_version,
    calculator_slug,
)
from .search import SEARCH_INDEX, search_json

_TYPES = {"css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
          "svg": "image/svg+xml"}
_HEADERS = {"content-security-policy": PAGE_CSP}
#: A page without a query string is the same until the corpus changes (at a restart).
_NO_STORE = {"cache-control": "no-store"}


# The route handlers are small closures over `site`; mccabe counts their branches here.
def mount_site(app: FastAPI, corpus: Corpus, site: Site | None = None,  # noqa: C901
               staff: Callable[[], Sequence[StaffAnswer]] | None = None) -> Site:
    """Add the site's routes to `app` (before any mount at "/"); return the renderer.

    `staff` returns the published staff answers (the log's): a page shows its own under its
    FAQ, and is rendered afresh when they change.
    """
    site = site or Site(corpus, staff=staff)
    rendered: dict[tuple[str, tuple], str] = {}

    def html(path: str) -> Response:
        # A published (or withdrawn) staff answer changes its page: part of the cache key.
        key = (path, tuple((e.id, e.slug, e.question, e.answer) for e in site.staff()))
        if key not in rendered:
            page = site.render_path(path)
            if page is None:
                return not_found(path)
            if len(rendered) > 4 * len(corpus) + 64:
                rendered.clear()  # old versions of pages whose staff answers changed
            rendered[key] = page
        return HTMLResponse(rendered[key], headers=_HEADERS)

    def not_found(path: str) -> Response:
        return HTMLResponse(site.not_found(path), status_code=404, headers=_HEADERS)

    def index(request: Request) -> Response:
        path = request.url.path
        if not path.endswith("/"):
            return RedirectResponse(path + "/", status_code=308)
        return html(path)

    def page(request: Request) -> Response:
        section, slug = request.url.path.strip("/").split("/")[:2]
        found = corpus.get(slug)
        if found is not None and KIND_PATHS.get(found.kind) != section:
            return RedirectResponse(found.url, status_code=301)  # /learn/nvlink -> /glossary/
        if request.url.path.endswith("/"):
            return RedirectResponse(request.url.path.rstrip("/"), status_code=308)
        return html(request.url.path)

    def calculator(request: Request) -> Response:
        slug = request.path_params["name"]
        spec = site.calculator_spec(slug)
        if spec is None:
            return not_found(request.url.path)
        canonical = f"/calculators/{calculator_slug(spec.name)}"
        if request.url.path != canonical:
            query = f"?{request.url.query}" if request.url.query else ""
            return RedirectResponse(canonical + query, status_code=308)
        data = _form(request)
        if not data:
            return html(canonical)
        body, status = site.calculator(slug, data) or ("", 404)
        return HTMLResponse(body, status_code=status, headers={**_HEADERS, **_NO_STORE})

    def calculator_api(request: Request) -> Response:
        found = site.api(request.path_params["name"], _form(request))
        if found is None:
            return JSONResponse({"ok": False, "errors": {"": "no such calculator"}},
                                status_code=404)
        body, status = found
        return JSONResponse(body, status_code=status, headers=_NO_STORE)

    def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSET_FILES:
            return Response("not found", status_code=404, media_type="text/plain")
        versioned = request.query_params.get("v") == asset_version(name)
        cache = "public, max-age=31536000, immutable" if versioned else "no-cache"
        return Response(asset_text(name), media_type=_TYPES[name.rsplit(".", 1)[-1]],
                        headers={"cache-control": cache})

    def llms(request: Request) -> Response:
        # Absolute links: a model reading the file has no page to resolve them against.
        base = str(request.base_url).rstrip("/")
        make = llms_txt if request.url.path == "/" + LLMS_TXT else llms_full
        return PlainTextResponse(make(site, base), headers={"cache-control": "no-cache"})

    def search(request: Request) -> Response:
        # The site search's index (search.js); rebuilt with the pages, staff answers included.
        return Response(search_json(site), media_type="application/json",
                        headers={"cache-control": "no-cache"})

    def embed_demo(request: Request) -> Response:
        return RedirectResponse("/glossary/nvlink", status_code=301)

    route = app.router.add_route
    for section in ("glossary", "learn", "calculators"):
        route(f"/{section}", index, methods=["GET"], include_in_schema=False)
        route(f"/{section}/", index, methods=["GET"], include_in_schema=False)
    for section in KIND_PATHS.values():
        route(f"/{section}/{{slug}}", page, methods=["GET"], include_in_schema=False)
        route(f"/{section}/{{slug}}/", page, methods=["GET"], include_in_schema=False)
    route("/calculators/{name}", calculator, methods=["GET"], include_in_schema=False)
    route("/calculators/{name}/", calculator, methods=["GET"], include_in_schema=False)
    route("/api/calculators/{name}", calculator_api, methods=["GET"], include_in_schema=False)
    route(f"/{ASSETS}/{{name}}", asset, methods=["GET"], include_in_schema=False)
    for name in (LLMS_TXT, LLMS_FULL):
        route(f"/{name}", llms, methods=["GET"], include_in_schema=False)
    route("/embed-demo", embed_demo, methods=["GET"], include_in_schema=False)
    route(f"/{SEARCH_INDEX}", search, methods=["GET"], include_in_schema=False)
    return site


def _form(request: Request) -> dict[str, Any]:
    # GET carries the form in the query string (a result is a link one can share).
    return {key: request.query_params.get(key) for key in request.query_params}


def widget_head(framed: bool = True) -> str:
    """Return the <head> tags that load the chat's scripts, for mounting a chat page.

    chat.js (every chat page): the conversation kept in the tab across pages, the answer's
    start in view, signs of work, notices, copy as clean text, share links. With `framed`
    (the widget), widget-bridge.js too: citations open in the host window (our site) or a new
    tab (another site), Esc closes the host's panel, and the host's FAQ buttons can ask (see
    assets/site.js).
    """
    names = ("chat.js", "widget-bridge.js") if framed else ("chat.js",)
    return "".join(f'<script src="/{ASSETS}/{name}?v={asset_version(name)}" defer></script>'
                   for name in names)
