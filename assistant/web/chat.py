"""The visitor chat and its compact embeddable form: one class whose handlers are methods.

Rendering is left to the pure functions in `render`; limits are enforced before a request
reaches these handlers (see `edge`), which only return the client's lease when they finish.

Example:
    >>> page = ChatPage(assistant, store, settings)      # compact=True: the iframe widget
    >>> demo = page.build()                               # a gr.Blocks, nothing served yet
    >>> page.question_events                              # what the edge admits as questions
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import gradio as gr

from ..answer import Answer
from ..handoff import MAX_EMAIL, HandoffError, Inbox, consent_note, thanks
from ..limits import Admission, ConcurrencyCap, RateLimiter
from .edge import request_ip
from .render import answer_messages, escape_markdown, greeting, starter_questions, user_message
from .transcript import MAX_TURNS, answer_of, dump, load, saved_turn

if TYPE_CHECKING:
    from ..chain import Assistant
    from ..config import Settings
    from ..store import Store

log = logging.getLogger(__name__)

TITLE = "Glossary assistant"
ASK_SUPPORT = "Ask support"
#: What the chat shows while an answer is on its way (the page script animates it).
TYPING = "…"
#: Messages a conversation keeps on screen and in its session state (older ones scroll away).
MAX_SHOWN = 60
#: The endpoints a script may call with a question (Gradio's API); both count as questions.
QUESTION_APIS = frozenset({"ask", "chat"})


def shape_problem(question: Any, history: Any, page: Any) -> str | None:
    """Return what is wrong with the shape of an API call's inputs, or None if nothing is."""
    if question is not None and not isinstance(question, str):
        return "question must be a string"
    if history is not None and not isinstance(history, list):
        return "history must be a list of {role, content} messages"
    if page is not None and not isinstance(page, str):
        return "page must be a string: a glossary page's slug, or empty"
    return None


def clip(text: str, limit: int) -> str:
    """Return text cut to `limit` characters, marked with an ellipsis when cut."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def trim_messages(messages: list[Any], qids: dict[int, int], keep: int = MAX_SHOWN
                  ) -> tuple[list[Any], dict[int, int]]:
    """Keep the newest `keep` messages, renumbering the message index -> question id map."""
    drop = max(0, len(messages) - keep)
    if not drop:
        return messages, qids
    return messages[drop:], {i - drop: q for i, q in qids.items() if i >= drop}


class ChatPage:
    """The visitor chat (compact=True: the iframe widget) as a gr.Blocks, not launched.

    `admission` is the limiter shared with the edge and every other mount: handlers of
    admitted questions return the client's lease through it when they finish.
    """

    def __init__(self, assistant: Assistant, store: Store, settings: Settings,
                 admission: Admission | None = None, *, compact: bool = False,
                 inbox: Inbox | None = None):
        self.assistant = assistant
        self.store = store
        self.settings = settings
        self.admission = admission or Admission(RateLimiter(0), ConcurrencyCap(0))
        self.inbox = inbox or Inbox(store, settings)
        self.compact = compact
        self.corpus = assistant.corpus
        #: fn indexes of the events that ask a question (set by build()).
        self.question_events: frozenset[int] = frozenset()

    # -- state -----------------------------------------------------------------------------

    @staticmethod
    def new_state(conversation: str | None = None) -> dict[str, Any]:
        """Return an empty conversation: everything it needs, per browser tab."""
        return {"messages": [], "history": [], "qids": {}, "turns": [],
                "conversation": conversation or uuid.uuid4().hex}

    def _remember(self, state: dict[str, Any], messages: list[Any], qids: dict[int, int],
                  question: str, answer: Answer) -> dict[str, Any]:
        """Return the state after an answer, with the shown messages and history capped."""
        s = self.settings
        history = state["history"] + [
            {"role": "user", "content": clip(question, s.max_question_chars)},
            {"role": "assistant", "content": clip(answer.text, s.max_history_chars)}]
        messages, qids = trim_messages(messages, qids)
        turns = (state.get("turns") or []) + [saved_turn(question, answer)]
        return {**state, "messages": messages, "qids": qids,
                "history": history[-s.max_history_turns:], "turns": turns[-MAX_TURNS:],
                "answers": state.get("answers", 0) + 1}

    def _staff(self) -> list[Any]:
        """Return the published staff answers (their citations link their own anchors)."""
        try:
            return self.store.staff_entries(status="published")
        except Exception:  # a log that cannot be read must not stop an answer
            log.exception("could not read the staff answers")
            return []

    def _shown(self, answer: Answer, asked: list[str]) -> list[dict[str, Any]]:
        """Return the chat messages of an answer, linking FAQ citations to their question."""
        faq = any(c.section == "FAQ" for c in answer.citations)
        return answer_messages(answer, self.corpus, self.settings.site_url,
                               self._staff() if faq else (), asked)

    @staticmethod
    def asked(state: dict[str, Any]) -> list[str]:
        """Return the questions asked so far in the conversation."""
        return [m["content"] for m in state.get("history", [])
                if isinstance(m, dict) and m.get("role") == "user"]

    @staticmethod
    def transcript(state: dict[str, Any]) -> str:
        """Return the JSON the page keeps in session storage ("" for an empty chat)."""
        turns = state.get("turns") or []
        return dump(state["conversation"], turns, state.get("answers", 0)) if turns else ""

    # -- handlers --------------------------------------------------------------------------

    def respond(self, message: str, state: dict[str, Any], page: str | None,
                request: gr.Request) -> Iterator[tuple[Any, ...]]:
        """Answer the question typed in the box, streaming the answer into the chat."""
        yield from self.turn(message, state, page, request)

    def respond_chip(self, state: dict[str, Any], page: str | None, evt: gr.SelectData,
                     request: gr.Request) -> Iterator[tuple[Any, ...]]:
        """Answer a suggested question the visitor clicked."""
        value = evt.value
        question = value.get("text", "") if isinstance(value, dict) else str(value or "")
        yield from self.turn(question, state, page, request)

    def turn(self, question: Any, state: dict[str, Any] | None, page: str | None,
             request: gr.Request | None) -> Iterator[tuple[Any, ...]]:
        """Show the question, stream the answer, log it; return the client's lease at the end."""
        ip = request_ip(request, self.settings.trusted_proxies)
        try:
            yield from self._turn(question if isinstance(question, str) else "",
                                  state or self.new_state(), page, ip)
        finally:
            self.admission.release(ip)

    def _turn(self, question: str, state: dict[str, Any], page: str | None, ip: str
              ) -> Iterator[tuple[Any, ...]]:
        if not question.strip():  # Enter on an empty box: nothing to answer
            yield state["messages"], "", state
            return
        shown = clip(question, self.settings.max_question_chars)
        messages = list(state["messages"]) + [user_message(shown)]
        base = len(messages)
        yield messages + [{"role": "assistant", "content": TYPING}], "", state
        answer: Answer | None = None
        pieces: list[str] = []
        for piece in self.assistant.stream(question, history=state["history"], page=page):
            if isinstance(piece, Answer):
                answer = piece
                break
            pieces.append(piece)
            partial = escape_markdown(" ".join(pieces), structure=True)
            yield messages + [{"role": "assistant", "content": partial}], "", state
        if answer is None:  # stream() always ends with the Answer; be safe anyway
            answer = self.assistant.ask(question, history=state["history"], page=page)
        qid = self.store.log(question, answer, session=state["conversation"], ip=ip, page=page)
        messages += self._shown(answer, self.asked(state) + [question])
        qids = dict(state["qids"])
        if qid is not None:
            qids.update({index: qid for index in range(base, len(messages))})
        state = self._remember(state, messages, qids, question, answer)
        yield state["messages"], "", state

    def retry(self, state: dict[str, Any] | None, page: str | None, request: gr.Request
              ) -> Iterator[tuple[Any, ...]]:
        """Ask the last question again, in place of its answer ("Try again")."""
        state = state or self.new_state()
        messages = list(state.get("messages") or [])
        last = next((i for i in range(len(messages) - 1, -1, -1)
                     if isinstance(messages[i], dict) and messages[i].get("role") == "user"),
                    None)
        turns = list(state.get("turns") or [])
        if last is None or not turns:
            self.admission.release(request_ip(request, self.settings.trusted_proxies))
            yield state.get("messages") or [], state
            return
        question = turns[-1]["q"]
        qids = {i: q for i, q in state["qids"].items() if i < last}
        earlier = {**state, "messages": messages[:last], "qids": qids, "turns": turns[:-1],
                   "history": state["history"][:-2]}
        for chat, _box, new_state in self.turn(question, earlier, page, request):
            yield chat, new_state  # the box keeps whatever is being typed

    def on_restore(self, text: Any, state: dict[str, Any] | None) -> tuple[Any, ...]:
        """Show again the conversation the page kept for this tab (see `transcript`)."""
        transcript = load(text)
        if transcript is None or not transcript.turns or (state or {}).get("turns"):
            return gr.update(), state, gr.update()
        restored = {**self.new_state(transcript.conversation),
                    "answers": max(0, transcript.answers - len(transcript.turns))}
        for turn in transcript.turns:
            answer = answer_of(turn, self.corpus)
            question = clip(turn.q, self.settings.max_question_chars)
            messages = list(restored["messages"]) + [user_message(question)]
            messages += self._shown(answer, self.asked(restored) + [question])
            # Earlier answers cannot be rated again from here: no question ids come back.
            restored = self._remember(restored, messages, restored["qids"], question, answer)
        return restored["messages"], restored, self.transcript(restored)

    def on_load(self, request: gr.Request) -> tuple[Any, ...]:
        """Greet with the page being read (?page=<slug>) and offer its questions."""
        slug = request.query_params.get("page") if request else None
        page = slug if isinstance(slug, str) and slug in self.corpus.pages else None
        title = self.assistant.page_title(page)
        examples = [{"text": q} for q in starter_questions(self.corpus, page)]
        # "greeted" tells the page's scripts that the page context is set (chat.js, site.js).
        return page, self.new_state(), gr.Chatbot(placeholder=greeting(title),
                                                  examples=examples, elem_classes=["greeted"])

    def on_like(self, state: dict[str, Any], evt: gr.LikeData) -> tuple[Any, ...]:
        """Record a thumb up or down (or its withdrawal) and open the comment row."""
        index = evt.index[0] if isinstance(evt.index, (list, tuple)) and evt.index else evt.index
        qids = (state or {}).get("qids", {})
        qid = qids.get(index) if isinstance(index, int) else None
        if qid is None:
            return None, gr.update(visible=False)
        if evt.liked is True or evt.liked is False:
            rating = 1 if evt.liked else -1
            self.store.feedback(qid, rating)
            return {"qid": qid, "rating": rating}, gr.update(visible=True)
        self.store.clear_feedback(qid)  # the thumb was taken back
        return None, gr.update(visible=False)

    def on_comment(self, comment: str, pending: dict[str, Any] | None) -> tuple[Any, ...]:
        """Store the comment that goes with the pending rating."""
        if pending and isinstance(comment, str) and comment.strip():
            self.store.feedback(pending["qid"], pending["rating"], comment.strip())
            gr.Info("Thank you: the team reads every comment.")
        return None, "", gr.update(visible=False)

    @staticmethod
    def on_new_chat() -> tuple[Any, ...]:
        """Empty the conversation (and close the ask-support row and form)."""
        hidden = gr.update(visible=False)
        return [], "", ChatPage.new_state(), None, "", hidden, hidden, hidden, "", ""

    # -- asking a person -------------------------------------------------------------------

    @staticmethod
    def support_offer(state: dict[str, Any] | None) -> tuple[Any, ...]:
        """Offer "Ask support" under the chat once something has been answered (afresh after
        each answer: an earlier thank-you goes)."""
        answered = bool((state or {}).get("history"))
        return gr.update(visible=answered), gr.update(visible=True), ""

    def after_answer(self, state: dict[str, Any] | None) -> tuple[Any, ...]:
        """Offer the answer's actions and hand the page the transcript to keep."""
        return (*self.support_offer(state), self.transcript(state or self.new_state()))

    def on_open_support(self, state: dict[str, Any] | None) -> tuple[Any, ...]:
        """Open the ask-support form, its question filled with the visitor's last question."""
        history = (state or {}).get("history") or []
        last = next((m.get("content", "") for m in reversed(history)
                     if isinstance(m, dict) and m.get("role") == "user"), "")
        return (gr.update(visible=True), gr.update(visible=False),
                clip(str(last), self.settings.max_question_chars), "")

    @staticmethod
    def on_cancel_support() -> tuple[Any, ...]:
        """Close the form without sending anything."""
        return gr.update(visible=False), gr.update(visible=True), ""

    def on_handoff(self, question: Any, email: Any, state: dict[str, Any] | None,
                   page: str | None, request: gr.Request) -> tuple[Any, ...]:
        """Send the question to support: thank the visitor, or say what to fix.

        Admitted by the edge like a question (it counts against the client's rate limit),
        so the client's lease is returned here.
        """
        ip = request_ip(request, self.settings.trusted_proxies)
        state = state or {}
        keep = gr.update()
        try:
            handoff = self.inbox.submit(question, email, state.get("history"),
                                        session=state.get("conversation", ""),
                                        page=page or "")
        except HandoffError as exc:
            return keep, keep, str(exc), keep, keep
        except Exception:  # the visitor gets a sentence, the log gets the traceback
            log.exception("could not store a support request")
            return (keep, keep, "Sorry: your request could not be sent. Please try again.",
                    keep, keep)
        finally:
            self.admission.release(ip)
        # The thank-you takes the button's place until the next answer offers it again.
        return (gr.update(visible=False), gr.update(visible=True), "", thanks(handoff.email),
                gr.update(visible=False))

    def ask(self, question: str, history: list | None = None, page: str = "",
            request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """Answer one question: history is a list of {role, content}; page a glossary slug."""
        ip = request_ip(request, self.settings.trusted_proxies)
        try:
            problem = shape_problem(question, history, page)
            if problem:
                raise gr.Error(problem, print_exception=False)
            slug = page if page in self.corpus.pages else None
            answer = self.assistant.ask(question or "", history=history or [], page=slug)
            self.store.log(question or "", answer, session="api", ip=ip, page=slug)
            return answer.to_json()
        finally:
            self.admission.release(ip)

    # -- layout ----------------------------------------------------------------------------

    def build(self) -> gr.Blocks:
        """Lay out the chat and wire its events; return the gr.Blocks (queued, not launched).

        Top to bottom: the conversation, the comment row (after a thumb down), the answer's
        actions (try again, share, new chat, ask support) and the support form, the question
        row; the transcript and restore boxes are hidden (the page script uses them).
        """
        compact = self.compact
        with gr.Blocks(title=TITLE, fill_height=compact, fill_width=compact,
                       delete_cache=(3600, 3600)) as demo:
            # Markdown, not gr.HTML: gr.HTML evaluates its template, which the CSP forbids.
            gr.Markdown(f"# {TITLE}", elem_id="chat-title", elem_classes=["sr-only"],
                        container=False, padding=False)
            page_state, chat_state, pending = gr.State(None), gr.State(None), gr.State(None)
            chatbot = gr.Chatbot(
                value=[], label="Conversation", show_label=False, elem_id="chat",
                height="auto" if compact else 560, scale=1 if compact else None,
                min_height=160, placeholder=greeting(None),
                examples=[{"text": q} for q in starter_questions(self.corpus)],
                feedback_options=("Like", "Dislike"), sanitize_html=True, allow_tags=False,
                render_markdown=True, latex_delimiters=[], buttons=["copy"],
                allow_file_downloads=False, autoscroll=False, layout="bubble")
            with gr.Row(visible=False, elem_id="comment-row", equal_height=True) as comment_row:
                comment = gr.Textbox(label="What was wrong or missing? (optional)",
                                     show_label=False, scale=4, min_width=120, max_lines=3,
                                     placeholder="What was wrong or missing? (optional)",
                                     elem_id="comment")
                send_comment = gr.Button("Send", scale=0, min_width=70, elem_id="send-comment")
            support = self._support_parts()
            with gr.Row(equal_height=True, elem_id="ask-row"):
                box = gr.Textbox(label="Your question", show_label=False, scale=4,
                                 min_width=120, max_lines=4, placeholder="Ask about a term…",
                                 elem_id="question", submit_btn=False,
                                 autofocus=not compact)
                send = gr.Button("Ask", variant="primary", scale=0, min_width=64, elem_id="ask")
            # The conversation as the page keeps it (session storage), and the way back in.
            transcript = gr.Textbox(visible="hidden", elem_id="transcript", label="Transcript")
            restore = gr.Textbox(visible="hidden", elem_id="restore", label="Restore")
            parts = {"page": page_state, "chat": chat_state, "pending": pending,
                     "chatbot": chatbot, "box": box, "send": send, "comment": comment,
                     "comment_row": comment_row, "send_comment": send_comment,
                     "transcript": transcript, "restore": restore, **support}
            self._wire(demo, parts)
        demo.queue(max_size=self.settings.queue_size,
                   default_concurrency_limit=self.settings.concurrency)
        return demo

    def _support_parts(self) -> dict[str, Any]:
        """Lay out the answer's actions and the support form (hidden until an answer)."""
        s = self.settings
        # One row of small actions under the conversation: "New chat" lives here only (not
        # over the answers), and "Share" is the page script's (it copies a link to the question).
        with gr.Row(visible=False, elem_id="support-row", equal_height=True) as support_row:
            retry = gr.Button("Try again", size="sm", scale=0, elem_id="retry")
            gr.Button("Share", size="sm", scale=0, elem_id="share")
            new = gr.Button("New chat", size="sm", scale=0, elem_id="new-chat")
            ask_support = gr.Button(ASK_SUPPORT, size="sm", scale=0, elem_id="ask-support")
            thanked = gr.Markdown("", elem_id="handoff-thanks")
        with gr.Column(visible=False, elem_id="handoff-form") as form:
            question = gr.Textbox(label="Your question for our support team", max_lines=3,
                                  max_length=s.max_question_chars, elem_id="handoff-question")
            email = gr.Textbox(label="Your email (optional, for a reply)", max_lines=1,
                               max_length=MAX_EMAIL, type="email", elem_id="handoff-email")
            gr.Markdown(consent_note(s.retention_days, s.support_email),
                        elem_id="handoff-consent")
            problem = gr.Markdown("", elem_id="handoff-error")
            with gr.Row(equal_height=True):
                send = gr.Button("Send to support", variant="primary", size="sm",
                                 elem_id="handoff-send")
                cancel = gr.Button("Cancel", size="sm", elem_id="handoff-cancel")
        return {"support_row": support_row, "ask_support": ask_support, "thanked": thanked,
                "retry": retry, "new": new,
                "form": form, "handoff_question": question, "handoff_email": email,
                "handoff_problem": problem, "handoff_send": send, "handoff_cancel": cancel}

    def _wire(self, demo: gr.Blocks, p: dict[str, Any]) -> None:
        private = {"api_visibility": "private"}
        quiet = {"show_progress": "hidden"}
        chat_in = [p["box"], p["chat"], p["page"]]
        chat_out = [p["chatbot"], p["box"], p["chat"]]
        chip_in = [p["chat"], p["page"]]
        questions = [
            # api_name="chat": the streaming endpoint a client can call with just the question.
            p["box"].submit(self.respond, chat_in, chat_out, api_name="chat", **quiet),
            p["send"].click(self.respond, chat_in, chat_out, **private, **quiet),
            p["chatbot"].example_select(self.respond_chip, chip_in, chat_out, **private,
                                        **quiet),
            p["chatbot"].option_select(self.respond_chip, chip_in, chat_out, **private,
                                       **quiet),
            p["retry"].click(self.retry, chip_in, [p["chatbot"], p["chat"]], **private, **quiet),
            gr.api(self.ask, api_name="ask"),
        ]
        # After the chat's events (not the API's): the answer's actions, and the transcript the
        # page keeps in the tab (its change tells the page script the answer is complete).
        for dep in questions[:-1]:
            dep.then(self.after_answer, [p["chat"]],
                     [p["support_row"], p["ask_support"], p["thanked"], p["transcript"]],
                     **private, **quiet)
        handoffs = self._wire_support(p)
        self.question_events = frozenset(dep["id"] for dep in questions + handoffs)
        comment_out = [p["pending"], p["comment"], p["comment_row"]]
        p["chatbot"].like(self.on_like, [p["chat"]], [p["pending"], p["comment_row"]],
                          **private)
        p["comment"].submit(self.on_comment, [p["comment"], p["pending"]], comment_out,
                            **private)
        p["send_comment"].click(self.on_comment, [p["comment"], p["pending"]], comment_out,
                                **private)
        new_out = [p["chatbot"], p["box"], p["chat"], p["pending"], p["comment"],
                   p["comment_row"], p["support_row"], p["form"], p["thanked"],
                   p["transcript"]]
        p["new"].click(self.on_new_chat, None, new_out, **private)
        demo.load(self.on_load, None, [p["page"], p["chat"], p["chatbot"]], **private)
        restored = p["restore"].change(self.on_restore, [p["restore"], p["chat"]],
                                      [p["chatbot"], p["chat"], p["transcript"]], **private,
                                      **quiet)
        restored.then(self.support_offer, [p["chat"]],
                      [p["support_row"], p["ask_support"], p["thanked"]], **private, **quiet)

    def _wire_support(self, p: dict[str, Any]) -> list[Any]:
        """Wire "Ask support" and its form; return the events that send a request."""
        private = {"api_visibility": "private"}
        p["ask_support"].click(self.on_open_support, [p["chat"]],
                               [p["form"], p["support_row"], p["handoff_question"],
                                p["handoff_problem"]], **private)
        p["handoff_cancel"].click(self.on_cancel_support, None,
                                  [p["form"], p["support_row"], p["handoff_problem"]],
                                  **private)
        send_in = [p["handoff_question"], p["handoff_email"], p["chat"], p["page"]]
        send_out = [p["form"], p["support_row"], p["handoff_problem"], p["thanked"],
                    p["ask_support"]]
        return [p["handoff_send"].click(self.on_handoff, send_in, send_out, **private),
                p["handoff_email"].submit(self.on_handoff, send_in, send_out, **private)]
