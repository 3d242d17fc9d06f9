"""The support console: one tab per view of the log, each downloadable as CSV.

The tabs and the downloads both come from `views.VIEWS`. Downloads are streamed from the
database by an authenticated route (`/admin/export/<view>.csv`, in `console_api` with the
console's other JSON routes): they never touch the disk, so Gradio's file cache, which every
mount serves, never holds them.

Example:
    >>> console = Console(store, settings)
    >>> admin = console.build()                  # a gr.Blocks, nothing served yet
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import gradio as gr

from .. import overview, staff
from ..handoff import MAX_REPLY
from ..logdb import row_id
from ..views import VIEWS, rows_to_table
from .chat import TITLE

if TYPE_CHECKING:
    from ..chain import Assistant
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
            if isinstance(value, str):  # visitors and staff wrote these: never markup
                value = html.escape(value, quote=False)
            cells.append(value)
        table.append(cells)
    return table


def question_of(row: list[Any], columns: list[str]) -> str:
    """Return the question of a clicked console row (cells as shown: escaped), or ""."""
    if "question" not in columns or len(row) <= columns.index("question"):
        return ""
    return html.unescape(str(row[columns.index("question")])).rstrip("…")


def retention_note(days: int) -> str:
    """Return the sentence that states how long the log is kept."""
    if days <= 0:
        return ("Questions, feedback and support requests are kept until deleted by hand "
                "(ASSISTANT_RETENTION_DAYS=0).")
    return (f"Questions, feedback and support requests (with their emails) are deleted after "
            f"{days} days (ASSISTANT_RETENTION_DAYS); visitor IPs are only ever stored as "
            f"salted hashes.")


def _said(text: str) -> str:
    return html.escape(str(text), quote=False)


class Console:
    """The support console page: the latest questions, gaps, feedback and terms."""

    def __init__(self, store: Store, settings: Settings, assistant: Assistant | None = None,
                 health: Callable[[], Any] | None = None):
        self.store = store
        self.settings = settings
        self.assistant = assistant
        self.health = health  # what /healthz says, for the Overview's cache figures

    def overview_html(self) -> str:
        """Return the Overview tab's figures as HTML."""
        return overview.render_html(overview.compute(
            self.store.path, titles=page_titles(self.assistant), health=self.health))

    # -- answering a gap -------------------------------------------------------------------

    def pages(self) -> list[tuple[str, str]]:
        """Return (title, slug) of every corpus page, for the page picker."""
        if self.assistant is None:
            return []
        return sorted((p.title, p.slug) for p in self.assistant.corpus)

    def save_answer(self, question: str, answer: str, slug: str, publish: bool,
                    request: gr.Request | None = None) -> str:
        """Store a staff answer (and publish it if asked); return a status line."""
        if self.assistant is None:
            return "Answering needs the assistant: this console is read-only."
        author = getattr(request, "username", None) or "staff"
        try:
            entry = self.store.add_staff_entry(question, answer, slug, author,
                                               self.assistant.corpus)
            if publish:
                entry = staff.publish(self.store, self.assistant.index,
                                      self.assistant.retriever, self.assistant.corpus, entry.id)
        except staff.StaffEntryError as exc:
            return f"Not saved: {html.escape(str(exc), quote=False)}"
        return f"Saved staff answer {entry.id} ({entry.status})."

    def save_draft(self, question: str, answer: str, slug: str,
                   request: gr.Request) -> str:
        """Store a staff answer as a draft; return a status line."""
        return self.save_answer(question, answer, slug, False, request)

    def save_published(self, question: str, answer: str, slug: str,
                       request: gr.Request) -> str:
        """Store a staff answer and publish it; return a status line."""
        return self.save_answer(question, answer, slug, True, request)

    def set_published(self, entry_id: float | None, publish: bool) -> str:
        """Publish or unpublish a staff answer by id; return a status line."""
        key = row_id(entry_id)
        if self.assistant is None or key is None:
            return "Give the id of a staff answer."
        a = self.assistant
        try:
            entry = (staff.publish(self.store, a.index, a.retriever, a.corpus, key)
                     if publish else staff.unpublish(self.store, a.index, a.retriever, key))
        except staff.StaffEntryError as exc:
            return f"Not done: {html.escape(str(exc), quote=False)}"
        return f"Staff answer {entry.id} is now {entry.status}."

    # -- the inbox -----------------------------------------------------------------------------

    def mark_answered(self, handoff_id: float | None, reply: str,
                      request: gr.Request | None = None) -> str:
        """Record the reply sent to a request and mark it answered; return a status line."""
        key = row_id(handoff_id)
        if key is None:
            return "Click a request in the inbox (or give its id) first."
        author = getattr(request, "username", None) or "staff"
        try:
            handoff = self.store.answer_handoff(key, reply, author)
        except ValueError as exc:
            return f"Not saved: {_said(exc)}"
        to = (f" This app sends no email: write to {_said(handoff.email)} yourself."
              if handoff.email else "")
        return f"Request {handoff.id} is answered.{to}"

    def publish_reply(self, question: str, reply: str, slug: str,
                      request: gr.Request | None = None) -> str:
        """Turn a request's question and reply into a published staff answer."""
        return self.save_answer(question, reply, slug, True, request)

    def delete_request(self, handoff_id: float | None) -> str:
        """Delete one request from the inbox; return a status line."""
        key = row_id(handoff_id)
        if key is None:
            return "Give the id of the request to delete."
        if self.store.delete_handoff(key):
            return f"Request {key} is deleted."
        return f"There is no request {key}."

    def forget_person(self, email: str) -> str:
        """Delete an email address from every request (a person's request to be forgotten)."""
        try:
            changed = self.store.forget_email(email)
        except ValueError as exc:
            return f"Not done: {_said(exc)}"
        return f"Deleted that address from {changed} row(s) of the log."

    @staticmethod
    def pick_request(evt: gr.SelectData) -> tuple[Any, ...]:
        """Return the id, question and page (the one the visitor was reading, if any) of a
        clicked inbox row."""
        row = getattr(evt, "row_value", None) or []
        columns = [c for c, _ in VIEWS["inbox"].columns]
        handoff_id = row[0] if row and isinstance(row[0], (int, float)) else None
        at = columns.index("page")
        page = html.unescape(str(row[at])) if len(row) > at and row[at] else None
        return handoff_id, question_of(row, columns), page if page else gr.update()

    def _inbox_form(self) -> list[Any]:
        """Lay out the inbox's actions; return the events that change it."""
        gr.Markdown("### Reply to a request\nClick a request: reply to the email shown (this "
                    "app sends no email), then record the reply. A reply worth keeping can be "
                    "published as a staff answer of a page (1 to 3 sentences that stand "
                    "alone). Delete a request, or every trace of a person's email, on request.",
                    elem_id="inbox-intro")
        status = gr.Markdown(elem_id="inbox-status", render=False)  # shown last, set by all
        private = {"api_visibility": "private"}
        with gr.Row():
            handoff_id = gr.Number(label="Request id", precision=0, elem_id="inbox-id",
                                   scale=0, min_width=120)
            question = gr.Textbox(label="Question", max_lines=3, elem_id="inbox-question")
        reply = gr.Textbox(label="Reply", lines=3, max_length=MAX_REPLY, elem_id="inbox-reply")
        with gr.Row():
            answered = gr.Button("Mark answered", variant="primary", elem_id="inbox-answered")
            delete = gr.Button("Delete this request", variant="stop", elem_id="inbox-delete")
        events = [answered.click(self.mark_answered, [handoff_id, reply], status, **private),
                  delete.click(self.delete_request, handoff_id, status, **private)]
        page = gr.State(None)  # without the assistant there is no page to publish to
        if self.assistant is not None:
            with gr.Row():
                page = gr.Dropdown(choices=self.pages(), value=None, label="Page",
                                   elem_id="inbox-page")
                faq = gr.Button("Publish the reply as a staff answer", elem_id="inbox-faq")
            events.append(faq.click(self.publish_reply, [question, reply, page], status,
                                    **private))
        with gr.Row():
            email = gr.Textbox(label="Delete a person's data: their email address",
                               max_lines=1, elem_id="inbox-forget-email")
            forget = gr.Button("Delete this person's data", variant="stop", scale=0,
                               elem_id="inbox-forget")
        events.append(forget.click(self.forget_person, email, status, **private))
        status.render()
        self.inbox_fields = (handoff_id, question, page)
        return events

    def picker(self, view_name: str):
        """Return the handler that copies a clicked row's question into the answer form."""
        columns = [c for c, _ in VIEWS[view_name].columns]

        def pick(evt: gr.SelectData) -> str:
            return question_of(getattr(evt, "row_value", None) or [], columns)
        return pick

    def _answer_form(self) -> list[Any]:
        gr.Markdown("### Answer a gap\nCopy a gap's question (or a disliked one), write 1 to "
                    "3 sentences that each stand alone, pick the page, and publish: the next "
                    "visitor asking it gets this answer first, marked *answered by support*. "
                    "[Download published answers as a front-matter patch (YAML)]"
                    "(staff/patch.yaml)", elem_id="answer-intro")
        with gr.Row():
            question = gr.Textbox(label="Question", max_length=staff.MAX_QUESTION,
                                  elem_id="staff-question")
            page = gr.Dropdown(choices=self.pages(), value=None, label="Page",
                               elem_id="staff-page")
        answer = gr.Textbox(label="Answer", lines=3, max_length=staff.MAX_ANSWER,
                            elem_id="staff-answer")
        with gr.Row():
            save = gr.Button("Save draft", elem_id="staff-save")
            publish = gr.Button("Save and publish", variant="primary", elem_id="staff-publish")
            entry = gr.Number(label="Staff answer id", precision=0, elem_id="staff-id")
            pub = gr.Button("Publish", elem_id="staff-pub")
            unpub = gr.Button("Unpublish", elem_id="staff-unpub")
        status = gr.Markdown(elem_id="staff-status")
        self.question_box = question
        save.click(self.save_draft, [question, answer, page], status,
                   api_visibility="private")
        publish.click(self.save_published, [question, answer, page], status,
                      api_visibility="private")
        pub.click(lambda i: self.set_published(i, True), entry, status,
                  api_visibility="private")
        unpub.click(lambda i: self.set_published(i, False), entry, status,
                    api_visibility="private")
        return [status]

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
        changes: list[Any] = []
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
                    if name == "staff" and self.assistant is not None:
                        self._answer_form()
                    if name == "inbox":
                        changes = self._inbox_form()
            with gr.Tab("Overview", elem_id="tab-overview"):
                # Markdown, not gr.HTML: gr.HTML evaluates its template as JavaScript
                # (new Function), which the console's policy (no 'unsafe-eval') refuses.
                figures = gr.Markdown(elem_id="overview", sanitize_html=True)
            admin.load(self.overview_html, None, figures, api_visibility="private")
            refresh.click(self.overview_html, None, figures, api_visibility="private")
            by_name = dict(zip(VIEWS, tables, strict=True))
            if self.assistant is not None:  # a gap or a disliked answer: click to answer it
                for name in ("gaps", "feedback"):
                    by_name[name].select(self.picker(name), None, self.question_box,
                                         api_visibility="private")
            by_name["inbox"].select(self.pick_request, None, list(self.inbox_fields),
                                    api_visibility="private")
            admin.load(self.refresh, None, tables, api_name="refresh")
            refresh.click(self.refresh, None, tables, api_visibility="private")
            # After the load, which keeps the API name "refresh" (the first one wins it).
            for change in changes:  # the tables show what an inbox action did
                change.then(self.refresh, None, tables, api_visibility="private")
        admin.queue(max_size=16, default_concurrency_limit=2)
        return admin


def page_titles(assistant: Assistant | None) -> dict[str, str]:
    """Return every page's title by slug ({} without the assistant)."""
    return {p.slug: p.title for p in assistant.corpus} if assistant is not None else {}
