"""The web front end: the visitor chat, its embeddable widget, the support console, the JSON
API, and the edge every request passes.

- `render`: pure functions, answer -> safe Markdown and chat messages;
- `chat`: `ChatPage`, the chat and the widget, handlers as methods;
- `console`, `auth`: the support console, its CSV exports and its sign-ins;
- `api`: `POST /api/ask`, the plain JSON API;
- `edge`: the middleware for body size, allowed routes and admission limits;
- `app`: `create_app` (services in, FastAPI out); `serve`: uvicorn settings and `launch`.

Example:
    >>> app = create_app(Assistant())               # FastAPI: /, /widget, /admin, /api/ask
    >>> launch(Assistant())                          # serve it until interrupted
"""

from .app import Services, build_demo, create_app, page_options
from .serve import launch, server_config

__all__ = ["Services", "build_demo", "create_app", "launch", "page_options", "server_config"]
