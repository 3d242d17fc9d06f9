"""Handoffs: a visitor's question handed to a person ("Not what you needed? Ask support").

A request is checked here (question within the question cap, an optional email of a sane
shape, the conversation so far cleaned and clipped), stored in the console's inbox by
`HandoffLog.add_handoff` (in `handoff_log`), and, when `ASSISTANT_HANDOFF_WEBHOOK` is set,
POSTed as JSON to that URL by a small pool of background threads: the visitor's thank-you
never waits for it. The outcome of the POST is recorded on the row (`webhook_status`).

Emails are stored only here, deleted with the request after `ASSISTANT_RETENTION_DAYS`, and
removable on request (`Store.forget_email`).

Example:
    >>> inbox = Inbox(store, settings)
    >>> handoff = inbox.submit("Does RoCE need PFC?", "ana@example.com",
    ...                        history=[{"role": "user", "content": "what is roce?"}])
    >>> handoff.status, handoff.webhook_status      # "pending" while the webhook is tried
    ('open', 'pending')
"""

from __future__ import annotations

import dataclasses
import json
import logging
import queue
import re
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .inputs import Message, clean_history, clean_text

if TYPE_CHECKING:
    from .config import Settings

log = logging.getLogger(__name__)

#: The longest address RFC 5321 allows in a path.
MAX_EMAIL = 254
#: What is kept of the conversation before a request: the newest turns, newest text first.
MAX_CONVERSATION_TURNS = 20
MAX_CONVERSATION_CHARS = 6000
#: The longest reply staff may record.
MAX_REPLY = 4000
#: Loose on purpose: one @, no spaces or markup characters, a dot in the domain.
EMAIL = re.compile(r"[^@\s<>()\[\]\\,;:\"']+@[^@\s<>()\[\]\\,;:\"']+\.[^@\s<>()\[\]\\,;:\"'.]+")
THANKS = "Thank you: our support team has your question{reply}."
#: Webhook deliveries made at once, and waiting at most; a request beyond them is stored (it
#: is in the inbox) but not sent, and its row says so.
WEBHOOK_WORKERS = 2
WEBHOOK_BACKLOG = 100
NOT_SENT = "not sent: too many webhook deliveries waiting"
#: Said plainly when the visitor left no email: nobody can write back.
NO_REPLY = ("You left no email, so we cannot reply to you; the team may add the answer to "
            "the glossary instead.")


class HandoffError(ValueError):
    """A request that cannot be accepted, with the reason the visitor is shown."""


@dataclass(frozen=True)
class HandoffRequest:
    """A visitor's request, checked and cleaned, ready to store."""

    question: str
    email: str | None
    conversation: tuple[Message, ...] = ()
    session: str = ""
    page: str = ""


@dataclass(frozen=True)
class Handoff:
    """One request in the console's inbox."""

    id: int
    created: str
    question: str
    conversation: tuple[Message, ...]
    email: str | None
    session: str
    page: str
    status: str  # "open" or "answered"
    reply: str = ""
    answered_by: str = ""
    answered_at: str = ""
    webhook_status: str = ""  # "", "pending", "sent (HTTP 200)", "failed: ...", NOT_SENT

    def payload(self) -> dict[str, Any]:
        """Return the JSON object the webhook receives."""
        return {"id": self.id, "created": self.created, "question": self.question,
                "email": self.email, "page": self.page, "session": self.session,
                "conversation": [asdict(m) for m in self.conversation]}


def validate(question: Any, email: Any = None, history: Any = None, *,
             max_question_chars: int = 1000, session: Any = "", page: Any = "",
             ) -> HandoffRequest:
    """Return the cleaned request, or raise HandoffError saying what to fix."""
    if question is not None and not isinstance(question, str):
        raise HandoffError("The question must be text.")
    if email is not None and not isinstance(email, str):
        raise HandoffError("The email address must be text.")
    question = clean_text(question)
    if not question:
        raise HandoffError("Write the question you would like support to answer.")
    if len(question) > max_question_chars:
        raise HandoffError(f"The question is longer than {max_question_chars} characters: "
                           "please shorten it.")
    address = clean_text(email) or None
    if address is not None:
        if len(address) > MAX_EMAIL:
            raise HandoffError(f"The email address is longer than {MAX_EMAIL} characters.")
        if not EMAIL.fullmatch(address):
            raise HandoffError("That does not look like an email address (name@example.com); "
                               "leave it empty to ask without one.")
    conversation = clean_history(history, MAX_CONVERSATION_TURNS, MAX_CONVERSATION_CHARS)
    return HandoffRequest(question, address, tuple(conversation),
                          clean_text(session)[:64], clean_text(page)[:200])


def consent_note(days: int, support_email: str = "") -> str:
    """Return the line under the email box: why the address is kept, and for how long."""
    kept = (f"delete it after {days} days" if days > 0
            else "delete it when you ask us to")
    note = f"We store your email only to reply to this request and {kept}."
    if support_email:
        note += f" You can also write to {support_email}."
    return note


def thanks(email: str | None) -> str:
    """Return the thank-you a visitor sees once a request is stored."""
    if email:
        return THANKS.format(reply=" and will reply by email")
    return THANKS.format(reply="") + " " + NO_REPLY


# -- the webhook ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Webhook:
    """POSTs a request as JSON to a URL, retrying with backoff; never raises.

    Example:
        >>> Webhook("http://127.0.0.1:9/hook", attempts=1).deliver({"id": 1})
        'failed after 1 attempt: ...'
    """

    url: str
    attempts: int = 3
    timeout_s: float = 5.0
    backoff_s: float = 0.5  # doubled after each failed attempt

    def deliver(self, payload: dict[str, Any]) -> str:
        """POST the payload until a 2xx answer or the attempts run out; return the outcome."""
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        reason = ""
        for attempt in range(1, self.attempts + 1):
            request = urllib.request.Request(
                self.url, data=data, method="POST",
                headers={"content-type": "application/json",
                         "user-agent": "glossary-assistant-handoff"})
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    return f"sent (HTTP {response.status})"
            except urllib.error.HTTPError as exc:
                reason = f"HTTP {exc.code}"
            except (OSError, ValueError) as exc:  # refused, timed out, unresolvable, bad URL
                reason = str(getattr(exc, "reason", None) or exc) or type(exc).__name__
            if attempt < self.attempts:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
        plural = "s" if self.attempts != 1 else ""
        return f"failed after {self.attempts} attempt{plural}: {reason}"[:300]


class DeliveryPool:
    """A few daemon threads working through a bounded backlog of deliveries.

    A slow or hanging webhook ties up `workers` threads, never one per request; once
    `workers + backlog` deliveries are running or waiting, `submit` refuses more instead of
    queueing without end.

    Example:
        >>> pool = DeliveryPool(workers=2, backlog=100)
        >>> pool.submit(print, "sent")
        True
    """

    def __init__(self, workers: int = WEBHOOK_WORKERS, backlog: int = WEBHOOK_BACKLOG,
                 idle_s: float = 60.0):
        self.workers = max(1, workers)
        self.idle_s = idle_s
        # Deliveries accepted and not finished (running or waiting): at most workers + backlog,
        # whichever thread happens to be quicker.
        self._slots = threading.BoundedSemaphore(self.workers + max(0, backlog))
        self._jobs: queue.Queue[tuple[Any, tuple[Any, ...]]] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def submit(self, job: Any, *args: Any) -> bool:
        """Queue a call for a worker; return False (and drop it) when the backlog is full."""
        if not self._slots.acquire(blocking=False):
            return False
        with self._lock:  # one lock for starting, queueing and retiring: no job is stranded
            self._jobs.put_nowait((job, args))
            while len(self._threads) < self.workers:
                thread = threading.Thread(target=self._work, daemon=True,
                                          name=f"handoff-webhook-{len(self._threads) + 1}")
                self._threads.append(thread)
                thread.start()
        return True

    def _work(self) -> None:
        while True:
            try:
                job, args = self._jobs.get(timeout=self.idle_s)
            except queue.Empty:
                with self._lock:
                    if self._jobs.empty():  # idle: the next submit starts a thread again
                        self._threads.remove(threading.current_thread())
                        return
                continue
            try:
                job(*args)
            except Exception:  # a job records its own failure; this is a last resort
                log.exception("a webhook delivery crashed")
            finally:
                self._slots.release()


class RequestLog(Protocol):
    """Where an Inbox keeps requests: the log (`handoff_log.HandoffLog`, `store.Store`)."""

    def add_handoff(self, request: HandoffRequest, webhook_status: str = "") -> Handoff:
        """Store a checked request as an open one and return it."""
        ...

    def set_webhook_status(self, handoff_id: int, status: str) -> None:
        """Record what the webhook made of a request."""
        ...


class Inbox:
    """Takes visitors' requests: checks them, stores them, and notifies the webhook.

    Shared by the chat, the widget and `POST /api/handoff`.
    """

    def __init__(self, store: RequestLog, settings: Settings, webhook: Webhook | None = None):
        self.store = store
        self.settings = settings
        self.webhook = webhook or (Webhook(settings.handoff_webhook)
                                   if settings.handoff_webhook else None)
        self.deliveries = DeliveryPool(WEBHOOK_WORKERS, WEBHOOK_BACKLOG)

    def submit(self, question: Any, email: Any = None, history: Any = None, *,
               session: Any = "", page: Any = "") -> Handoff:
        """Store a visitor's request and start the webhook; raise HandoffError on bad input."""
        request = validate(question, email, history, session=session, page=page,
                           max_question_chars=self.settings.max_question_chars)
        handoff = self.store.add_handoff(request,
                                         webhook_status="pending" if self.webhook else "")
        if self.webhook is not None and not self.deliveries.submit(self._notify, handoff):
            log.warning("handoff %d: %s", handoff.id, NOT_SENT)
            self.store.set_webhook_status(handoff.id, NOT_SENT)
            handoff = dataclasses.replace(handoff, webhook_status=NOT_SENT)
        return handoff

    def _notify(self, handoff: Handoff) -> None:
        assert self.webhook is not None
        try:
            outcome = self.webhook.deliver(handoff.payload())
        except Exception as exc:  # a bug here must not kill silently: record it
            log.exception("handoff webhook crashed")
            outcome = f"failed: {type(exc).__name__}"
        if outcome.startswith("failed"):
            log.warning("handoff %d: webhook %s", handoff.id, outcome)
        try:
            self.store.set_webhook_status(handoff.id, outcome)
        except Exception:
            log.exception("could not record the webhook outcome of handoff %d", handoff.id)
