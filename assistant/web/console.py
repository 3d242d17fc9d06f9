"""The support console: one tab per view of the log, each downloadable as CSV.

The tabs and the downloads both come from `views.VIEWS`. Downloads are streamed from the
database by an authenticated route (`/admin/export/<view>.csv`): they never touch the disk, so
Gradio's file cache, which every mount serves, never holds them.

Example:
    >>> console = Console(store, settings)
    >>> admin = console.build()                  # a gr.Blocks, nothing served yet
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gradio as gr
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import StreamingResponse

from ..views import VIEWS, rows_to_table
from .auth import ConsoleAuth
from .chat import TITLE

if TYPE_CHECKING:
    from ..config import Settings
    from ..store import Store

#: Rows each console table shows (the CSV has them all).
SHOWN_ROWS = 200


def console_table(rows: list[Any], columns: list[str], clip: int = 300) -> list[list[Any]]:
    """Return rows as table cells in the given column order, long text clipped."""
    table = []
    for row in rows_to_table(rows):
        cells = []
        for name in columns:
            value = row.get(name, "")
            if isinstance(value, list):
                value = " | ".join(value)
            if isinstance(value, str) and len(value) > clip:
                value = value[:clip - 1] + "…"
            cells.append(value)
        table.append(cells)
    return table


def retention_note(days: int) -> str:
    """Return the sentence that states how long the log is kept."""
    if days <= 0:
        return "Questions and feedback are kept until deleted by hand (ASSISTANT_RETENTION_DAYS=0)."
    return (f"Questions and feedback are deleted after {days} days "
            f"(ASSISTANT_RETENTION_DAYS); visitor IPs are only ever stored as salted hashes.")


class Console:
    """The support console page: the latest questions, gaps, feedback and terms."""

    def __init__(self, store: Store, settings: Settings):
        self.store = store
        self.settings = settings

    def refresh(self) -> list[dict[str, Any]]:
        """Return every view's table, newest or most frequent first."""
        tables = []
        for name, spec in VIEWS.items():
            columns = [column for column, _ in spec.columns]
            rows = self.store.rows(name, limit=SHOWN_ROWS)
            tables.append({"headers": columns, "data": console_table(rows, columns)})
        return tables

    def build(self) -> gr.Blocks:
        """Lay out the console; return the gr.Blocks (queued, not launched)."""
        tables: list[gr.Dataframe] = []
        with gr.Blocks(title=f"{TITLE}: support console") as admin:
            with gr.Row():
                gr.Markdown("## Support console\nWhat visitors ask, what went unanswered and "
                            "what they disliked: fix the corpus where it falls short.\n\n"
                            f"*{retention_note(self.settings.retention_days)}*",
                            elem_id="console-intro")
                refresh = gr.Button("Refresh", scale=0, min_width=100, elem_id="refresh")
                gr.Button("Sign out", scale=0, min_width=100, elem_id="logout",
                          link="logout", variant="secondary")
            for name, spec in VIEWS.items():
                with gr.Tab(spec.label, elem_id=f"tab-{name}"):
                    tables.append(gr.Dataframe(
                        headers=[c for c, _ in spec.columns], interactive=False, wrap=True,
                        column_widths=[w for _, w in spec.columns], elem_id=f"table-{name}",
                        max_height=640, show_search="search"))
                    # A plain link to the authenticated export route, relative to /admin/.
                    gr.Markdown(f"[Download {spec.label.lower()} (CSV)](export/{name}.csv)",
                                elem_id=f"csv-{name}")
            admin.load(self.refresh, None, tables, api_name="refresh")
            refresh.click(self.refresh, None, tables, api_visibility="private")
        admin.queue(max_size=16, default_concurrency_limit=2)
        return admin


def export_routes(store: Store, auth: ConsoleAuth, prefix: str) -> APIRouter:
    """Return the route that streams a view as CSV to a signed-in user."""
    router = APIRouter(prefix=prefix, include_in_schema=False)

    @router.get("/export/{name}.csv")
    def export(name: str, request: Request) -> StreamingResponse:
        if auth.request_user(request) is None:
            raise HTTPException(401, "Sign in to the support console first.")
        if name not in VIEWS:
            raise HTTPException(404, f"No view {name!r}.")
        return StreamingResponse(
            store.iter_csv(name), media_type="text/csv; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="{name}.csv"',
                     "cache-control": "no-store"})

    return router
