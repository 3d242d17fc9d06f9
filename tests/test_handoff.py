"""Handoffs ("Ask support"): the checks on visitor input, the chat's form, the inbox in the
store and the console, the webhook (a real HTTP server on loopback), retention, deleting a
person's data, the CSV exports and the JSON routes. The fast in-memory assistant stands in for
the model; the one test through Gradio's queue starts the app on loopback (integration)."""

from __future__ import annotations

import http.server
import json
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from conftest import free_port

from assistant.handoff import (
    MAX_CONVERSATION_CHARS,
    MAX_EMAIL,
    HandoffError,
    Inbox,
    Webhook,
    consent_note,
    validate,
)
from assistant.limits import Admission, ConcurrencyCap, RateLimiter
from assistant.store import FORGOTTEN, Store
from assistant.web.chat import ChatPage
from assistant.web.console import Console, console_table

XSS = '<img src=x onerror=alert(1)> <script>alert(2)</script>'
PASSWORD = "s3cret-pass"


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "log.sqlite3")


@pytest.fixture
def hook():
    """A webhook receiver on loopback: yields (url, the JSON bodies it received)."""
    received: list[dict] = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            length = int(self.headers.get("content-length", 0))
            received.append({"type": self.headers.get("content-type"),
                             "body": json.loads(self.rfile.read(length))})
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", received
    server.shutdown()
    server.server_close()


def _wait_for(predicate, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def _answered(page: ChatPage, question: str, slug: str | None = None) -> dict:
    """Ask through the chat's handler as the browser does; return the conversation's state."""
    *_, (_, _, state) = page.turn(question, page.new_state(), slug, None)
    return state


# -- checks on visitor input -------------------------------------------------------------------

@pytest.mark.parametrize(("question", "email", "reason"), [
    ("", None, "Write the question"),
    ("   \n\t ", None, "Write the question"),
    ("x" * 1001, None, "longer than 1000"),
    ("ok?", "ana", "does not look like an email"),
    ("ok?", "ana@", "does not look like an email"),
    ("ok?", "ana@example", "does not look like an email"),
    ("ok?", "a b@example.com", "does not look like an email"),
    ("ok?", "<script>@x.io", "does not look like an email"),
    ("ok?", "a@b.co,c@d.co", "does not look like an email"),
    ("ok?", "a" * 250 + "@x.io", f"longer than {MAX_EMAIL}"),
    (["not", "text"], None, "must be text"),
    ("ok?", 42, "must be text"),
])
def test_bad_input_is_refused_with_a_clear_message(question, email, reason):
    with pytest.raises(HandoffError, match=reason):
        validate(question, email, max_question_chars=1000)


def test_input_is_cleaned_and_the_conversation_clipped():
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "x" * 900}
               for i in range(40)] + [{"role": "system", "content": "ignored"}, "junk"]
    request = validate("  Does RoCE\nneed PFC?\x00 ", " ana@example.com ", history,
                       session="abc", page="roce")
    assert (request.question, request.email, request.page) == (
        "Does RoCE need PFC?", "ana@example.com", "roce")
    assert sum(len(m.content) for m in request.conversation) <= MAX_CONVERSATION_CHARS
    assert request.conversation[-1].content.startswith("turn 39")  # the newest are kept
    assert {m.role for m in request.conversation} == {"user", "assistant"}
    assert validate("ok?", "").email is None and validate("ok?", None).email is None


def test_consent_line_names_the_retention_and_the_support_address():
    assert "delete it after 30 days" in consent_note(30)
    assert "when you ask us to" in consent_note(0)
    assert consent_note(90, "help@example.com").endswith("You can also write to "
                                                         "help@example.com.")


# -- the chat's form -> the inbox --------------------------------------------------------------

def test_form_lands_in_the_inbox_with_the_conversation(fake_bot, store):
    admission = Admission(RateLimiter(10), ConcurrencyCap(2))
    page = ChatPage(fake_bot, store, fake_bot.settings, admission, compact=True)
    state = _answered(page, "What is NVLink?", "nvlink")
    row, button, thanked = page.support_offer(state)
    assert row["visible"] is True and button["visible"] is True and thanked == ""
    assert page.support_offer(page.new_state())[0]["visible"] is False

    form, row, question, problem = page.on_open_support(state)
    assert form["visible"] is True and row["visible"] is False
    assert question == "What is NVLink?" and problem == ""  # the last question, prefilled

    assert admission.admit("") is None  # the edge admitted the submit like a question
    form, row, problem, thanked, button = page.on_handoff(
        "Which GPUs have NVLink 5?", "ana@example.com", state, "nvlink", None)
    assert admission.concurrency.in_flight("") == 0  # ...and the handler gave the lease back
    assert form["visible"] is False and row["visible"] is True and problem == ""
    assert thanked.startswith("Thank you") and "reply by email" in thanked
    assert button["visible"] is False  # the thank-you stands in its place
    [handoff] = store.handoffs()
    assert (handoff.question, handoff.email, handoff.page, handoff.status) == (
        "Which GPUs have NVLink 5?", "ana@example.com", "nvlink", "open")
    assert handoff.session == state["conversation"]
    assert [m.role for m in handoff.conversation] == ["user", "assistant"]
    assert handoff.conversation[0].content == "What is NVLink?"
    assert "NVLink" in handoff.conversation[1].content
    assert handoff.webhook_status == ""  # no webhook set


def test_bad_form_input_gets_a_message_and_stores_nothing(fake_bot, store):
    page = ChatPage(fake_bot, store, fake_bot.settings)
    for question, email in [("", None), ("ok?", "not-an-email"), ("y" * 5000, None)]:
        form, row, problem, thanked, button = page.on_handoff(question, email, None, None, None)
        assert problem and "Traceback" not in problem
        assert form == row == thanked == button == {"__type__": "update"}  # the form stays
    assert store.handoffs() == []


def test_a_failing_store_gets_a_sentence_not_a_traceback(fake_bot, store, monkeypatch):
    page = ChatPage(fake_bot, store, fake_bot.settings)

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(store, "add_handoff", broken)
    _, _, problem, _, _ = page.on_handoff("ok?", None, None, None, None)
    assert problem.startswith("Sorry") and "disk full" not in problem


# -- the webhook -------------------------------------------------------------------------------

def test_webhook_receives_the_request_as_json(fake_bot, store, hook):
    url, received = hook
    inbox = Inbox(store, fake_bot.settings.replace(handoff_webhook=url))
    history = [{"role": "user", "content": "what is roce?"},
               {"role": "assistant", "content": "RoCE is RDMA over Ethernet."}]
    handoff = inbox.submit("Does RoCE need PFC?", "ana@example.com", history, page="roce")
    assert handoff.webhook_status == "pending"
    row = _wait_for(lambda: (h := store.handoff(handoff.id)).webhook_status != "pending" and h)
    assert row.webhook_status == "sent (HTTP 204)"
    [got] = received
    assert got["type"] == "application/json"
    assert got["body"] == {"id": handoff.id, "created": handoff.created,
                           "question": "Does RoCE need PFC?", "email": "ana@example.com",
                           "page": "roce", "session": "", "conversation": history}


def test_webhook_down_still_thanks_the_visitor_and_keeps_the_row(fake_bot, store):
    closed = f"http://127.0.0.1:{free_port()}/hook"  # nothing listens there
    inbox = Inbox(store, fake_bot.settings, webhook=Webhook(closed, backoff_s=0.3))
    page = ChatPage(fake_bot, store, fake_bot.settings, inbox=inbox)
    start = time.monotonic()
    _, _, problem, thanked, _ = page.on_handoff("Is RoCE lossless?", None, None, None, None)
    assert time.monotonic() - start < 0.3  # three tries take longer: it did not wait
    assert problem == "" and thanked.startswith("Thank you")
    [handoff] = store.handoffs()
    assert handoff.webhook_status == "pending"
    row = _wait_for(lambda: (h := store.handoff(handoff.id)).webhook_status != "pending" and h)
    assert row.webhook_status.startswith("failed after 3 attempts")
    assert row.question == "Is RoCE lossless?" and row.status == "open"


def test_webhook_deliveries_run_in_a_small_pool_with_a_bounded_backlog(fake_bot, store,
                                                                       monkeypatch):
    import assistant.handoff as handoff_module

    monkeypatch.setattr(handoff_module, "WEBHOOK_WORKERS", 2, raising=False)
    monkeypatch.setattr(handoff_module, "WEBHOOK_BACKLOG", 3, raising=False)
    release, received = threading.Event(), []

    class Stuck(http.server.BaseHTTPRequestHandler):  # a receiver that hangs until told
        def do_POST(self):  # noqa: N802 (http.server's name)
            received.append(self.rfile.read(int(self.headers["content-length"])))
            release.wait(30)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stuck)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/hook"
        def webhook_threads() -> set[threading.Thread]:
            return {t for t in threading.enumerate() if t.name.startswith("handoff-webhook")}

        before = webhook_threads()  # other tests' idle workers
        inbox = Inbox(store, fake_bot.settings, webhook=Webhook(url, attempts=1, timeout_s=30))
        handoffs = [inbox.submit(f"Question {i}?") for i in range(12)]
        _wait_for(lambda: len(received) == 2)
        time.sleep(0.3)
        statuses = [store.handoff(h.id).webhook_status for h in handoffs]
        assert len(webhook_threads() - before) <= 2, len(webhook_threads() - before)
        assert len(received) == 2  # two deliveries at once, three waiting, the rest not sent
        assert statuses.count("pending") == 5, statuses
        assert sum(s.startswith("not sent: too many") for s in statuses) == 7, statuses
        release.set()
        assert _wait_for(lambda: sum(store.handoff(h.id).webhook_status == "sent (HTTP 204)"
                                     for h in handoffs) == 5)
        assert len(store.handoffs()) == 12  # every request is in the inbox either way
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def test_idle_delivery_threads_end_and_start_again():
    from assistant.handoff import DeliveryPool

    pool, done = DeliveryPool(workers=2, backlog=4, idle_s=0.1), []
    assert pool.submit(done.append, 1)
    _wait_for(lambda: done == [1] and not pool._threads)  # idle: no thread is kept
    assert pool.submit(done.append, 2)
    _wait_for(lambda: done == [1, 2])


def test_webhook_reports_http_errors_and_bad_urls():
    assert Webhook("http://", attempts=1).deliver({}).startswith("failed after 1 attempt:")


def test_webhook_setting_must_be_a_url():
    from assistant.config import Settings, SettingsError

    with pytest.raises(SettingsError, match="HANDOFF_WEBHOOK"):
        Settings.from_env({"ASSISTANT_HANDOFF_WEBHOOK": "file:///etc/passwd"})
    assert Settings.from_env({}).handoff_webhook == ""


# -- privacy: retention, deleting, exports -----------------------------------------------------

def test_retention_purges_old_requests_with_their_emails(store):
    kept = store.add_handoff(validate("Is RoCE routable?", "ana@example.com"))
    now = datetime.now(UTC)
    assert store.purge(30, now=now + timedelta(days=1)) == 0
    assert store.handoff(kept.id) is not None
    assert store.purge(0, now=now + timedelta(days=365)) == 0  # 0 keeps everything
    assert store.purge(30, now=now + timedelta(days=31)) == 1
    assert store.handoffs() == []


def test_delete_a_persons_data_by_email_and_a_single_request(store):
    a = store.add_handoff(validate("Reply to Ana@Example.com please", "ana@example.com",
                                   [{"role": "user", "content": "I am ana@example.com"}]))
    b = store.add_handoff(validate("Another one", "ANA@example.com"))
    other = store.add_handoff(validate("Bo here", "bo@example.com"))
    store.answer_handoff(b.id, "Sent to ana@example.com", "admin")
    with pytest.raises(ValueError):
        store.forget_email("not an address")
    assert store.forget_email("ana@EXAMPLE.com") == 2
    a, b = store.handoff(a.id), store.handoff(b.id)
    assert a.email is None and b.email is None
    assert a.question == "Reply to [email] please"  # redacted when it was stored
    assert a.conversation[0].content == "I am [email]"
    assert b.reply == f"Sent to {FORGOTTEN}"
    dump = json.dumps([r.__dict__ for r in store.handoff_rows()]).lower()
    assert "ana@example.com" not in dump
    assert store.handoff(other.id).email == "bo@example.com"  # nobody else's data
    assert store.delete_handoff(other.id) and store.handoff(other.id) is None
    assert not store.delete_handoff(other.id)
    assert [h.id for h in store.handoffs()] == [b.id, a.id]


def test_personal_data_typed_into_a_request_is_redacted_the_reply_address_kept(store):
    handoff = store.add_handoff(validate(
        "Call me on +44 20 7946 0958 or write to ana.leak@example.com",
        "ana.leak@example.com",
        [{"role": "user", "content": "my key is sk-proj-4f9aX2kLmN8pQ7rS1tU3vW5yZ"}]))
    assert handoff.question == "Call me on [phone] or write to [email]"
    assert handoff.conversation[0].content == "my key is [key]"
    assert handoff.email == "ana.leak@example.com"
    payload = handoff.payload()  # what the webhook receives
    assert payload["email"] == "ana.leak@example.com" and "[email]" in payload["question"]


def test_emails_are_left_out_of_csv_exports_unless_asked(store, tmp_path):
    store.add_handoff(validate("Is RoCE routable?", "ana@example.com"))
    plain = store.export_csv("inbox", tmp_path / "inbox.csv").read_text()
    assert "email" not in plain.splitlines()[0] and "ana@example.com" not in plain
    assert "Is RoCE routable?" in plain
    full = store.export_csv("inbox", tmp_path / "full.csv", private=True).read_text()
    assert "email" in full.splitlines()[0].split(",") and "ana@example.com" in full


# -- the app: JSON API, console routes ---------------------------------------------------------

@pytest.fixture
def client(fake_bot, store):
    from fastapi.testclient import TestClient

    from assistant.web.app import create_app

    settings = fake_bot.settings.replace(admin_password=PASSWORD, rate_limit_per_minute=3)
    return TestClient(create_app(fake_bot, store, settings=settings),
                      base_url="https://testserver")


def _login(client) -> dict:
    """Sign in; return the headers a console page sends with a change (same origin, the
    session's CSRF token)."""
    login = client.post("/admin/login", data={"username": "admin", "password": PASSWORD},
                        follow_redirects=False)
    assert login.status_code in (200, 303)
    csrf = client.get("/admin/csrf")
    token = csrf.json()["token"] if csrf.status_code == 200 else ""
    return {"origin": str(client.base_url).rstrip("/"), "x-csrf-token": token}


def test_api_handoff_stores_the_request_and_refuses_bad_input(client, store):
    ok = client.post("/api/handoff", json={
        "question": "Does our switch support RoCE?", "email": "ana@example.com",
        "history": [{"role": "user", "content": "what is roce?"}], "page": "roce"})
    assert ok.status_code == 200
    body = ok.json()
    assert body["status"] == "open" and body["message"].startswith("Thank you")
    handoff = store.handoff(body["id"])
    assert (handoff.question, handoff.email, handoff.page) == (
        "Does our switch support RoCE?", "ana@example.com", "roce")
    assert handoff.conversation[0].content == "what is roce?"
    bad = client.post("/api/handoff", json={"question": "ok?", "email": "nope"})
    assert bad.status_code == 400 and "email address" in bad.json()["detail"]
    empty = client.post("/api/handoff", json={"question": "  "})
    assert empty.status_code == 400 and "Write the question" in empty.json()["detail"]
    # The rate limit (3 a minute here) counts handoffs with the client's questions.
    limited = client.post("/api/handoff", json={"question": "one more?"})
    assert limited.status_code == 429 and limited.headers["retry-after"]
    assert len(store.handoffs()) == 1


def test_api_handoff_refuses_oversized_and_malformed_bodies(client, store):
    assert client.post("/api/handoff", json={"question": "x" * 2000}).status_code == 400
    assert client.post("/api/handoff", json={"question": 3}).status_code == 422
    assert client.post("/api/handoff", json={"question": "ok", "extra": 1}).status_code == 422
    assert store.handoffs() == []


def test_an_address_typed_into_a_question_is_in_no_table_or_export(client, store):
    asked = client.post("/api/ask", json={
        "question": "my email is ana.leak@example.com, what is roce?"})
    assert asked.status_code == 200
    [row] = store.recent()
    assert row.question == "my email is [email], what is roce?"
    _login(client)
    export = client.get("/admin/export/recent.csv")
    assert export.status_code == 200 and "[email], what is roce?" in export.text
    assert "ana.leak" not in export.text.lower()


def test_console_routes_and_exports_need_a_login(client, store):
    handoff = store.add_handoff(validate("Is RoCE routable?", "ana@example.com"))
    for method, path, body in [
            ("get", "/admin/export/inbox.csv", None),
            ("get", "/admin/export/inbox.csv?emails=1", None),
            ("get", "/admin/inbox", None),
            ("post", f"/admin/inbox/{handoff.id}/answer", {"reply": "yes"}),
            ("post", f"/admin/inbox/{handoff.id}/delete", None),
            ("post", "/admin/inbox/forget", {"email": "ana@example.com"}),
            ("post", "/admin/staff", {"question": "q", "answer": "a", "slug": "roce"})]:
        response = getattr(client, method)(path, **({"json": body} if body else {}))
        assert response.status_code == 401, path
    assert store.handoff(handoff.id).email == "ana@example.com"
    assert store.handoff(handoff.id).status == "open"

    console = _login(client)  # a change also needs the console's origin and token
    plain = client.get("/admin/export/inbox.csv")
    assert plain.status_code == 200 and "Is RoCE routable?" in plain.text
    assert "ana@example.com" not in plain.text and "email" not in plain.text.splitlines()[0]
    full = client.get("/admin/export/inbox.csv?emails=1")
    assert "ana@example.com" in full.text
    assert client.get("/admin/inbox").json()[0]["email"] == "ana@example.com"
    answered = client.post(f"/admin/inbox/{handoff.id}/answer", json={"reply": "Yes, it is."},
                           headers=console)
    assert answered.status_code == 200 and answered.json()["status"] == "answered"
    assert answered.json()["answered_by"] == "admin"
    assert client.post(f"/admin/inbox/{handoff.id}/answer", json={"reply": " "},
                       headers=console).status_code == 400
    assert client.post("/admin/inbox/forget", json={"email": "ana@example.com"},
                       headers=console).json() == {"changed": 1}
    assert client.post(f"/admin/inbox/{handoff.id}/delete",
                       headers={**console, "content-type": "application/json"}).json() == {
        "deleted": True}
    assert store.handoffs() == []


HUGE = "99999999999999999999999"


@pytest.mark.parametrize(("path", "body"), [
    ("/admin/staff", b'{"question": "Is RoCE routable?", "answ'),
    ("/admin/staff", b'{"question": NaN, "answer": 1e400, "slug": "roce"}'),
    ("/admin/staff", b'["not", "an", "object"]'),
    ("/admin/staff", b''),
    (f"/admin/staff/{HUGE}/publish", b""),
    (f"/admin/staff/{HUGE}/unpublish", b""),
    ("/admin/staff/-1/publish", b""),
    ("/admin/staff/1e3/publish", b""),
    (f"/admin/inbox/{HUGE}/delete", b""),
    (f"/admin/inbox/{HUGE}/answer", b'{"reply": "yes"}'),
    ("/admin/inbox/1/answer", b'{"reply": "ye'),
    ("/admin/inbox/forget", b'{"email": '),
])
def test_odd_console_input_gets_a_clear_4xx_not_a_500(odd_console, path, body):
    client, headers, store = odd_console
    response = client.post(path, content=body,
                           headers={**headers, "content-type": "application/json"})
    assert 400 <= response.status_code < 500, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json")
    assert set(response.json()) & {"detail", "error"}
    assert store.staff_entries() == [] and store.handoffs() == []


@pytest.fixture(scope="module")
def odd_console(fake_bot, tmp_path_factory):
    """A signed-in client of one app for the module, its console headers and its store."""
    from fastapi.testclient import TestClient

    from assistant.web.app import create_app

    store = Store(tmp_path_factory.mktemp("odd") / "log.sqlite3")
    settings = fake_bot.settings.replace(admin_password=PASSWORD)
    with TestClient(create_app(fake_bot, store, settings=settings), base_url="https://testserver",
                    raise_server_exceptions=False) as client:
        yield client, _login(client), store


# -- the console's inbox -----------------------------------------------------------------------

def test_html_in_a_request_is_escaped_in_the_console(fake_bot, store):
    store.add_handoff(validate(f"Is {XSS} fast?", None,
                               [{"role": "user", "content": XSS}]))
    console = Console(store, fake_bot.settings, fake_bot)
    tables = dict(zip(["recent", "gaps", "feedback", "terms", "staff", "inbox"],
                      console.refresh(), strict=True))
    cells = " ".join(str(c) for row in tables["inbox"]["data"] for c in row)
    assert "<script>" not in cells and "<img" not in cells
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in cells
    columns = ["question", "conversation"]
    assert all("<" not in c for row in console_table(store.handoff_rows(), columns)
               for c in row)


def test_console_answers_publishes_and_deletes_requests(fake_bot, store):
    from assistant import staff
    from assistant.config import Settings
    from assistant.testing import fake_assistant

    bot = fake_assistant(Settings.from_env({}, corpus_dir=fake_bot.settings.corpus_dir,
                                           data_dir=fake_bot.settings.data_dir))
    console = Console(store, bot.settings, bot)
    handoff = store.add_handoff(validate("Does RoCE need a lossless network?",
                                         "ana@example.com"))
    assert console.mark_answered(None, "x").startswith("Click a request")
    assert console.mark_answered(handoff.id, "  ").startswith("Not saved")
    assert console.mark_answered(999, "Yes.").startswith("Not saved")
    said = console.mark_answered(handoff.id, "Yes: RoCE needs PFC or ECN.")
    assert said == (f"Request {handoff.id} is answered. This app sends no email: write to "
                    "ana@example.com yourself.")
    assert store.handoff(handoff.id).reply == "Yes: RoCE needs PFC or ECN."

    reply = "RoCE runs best on a lossless Ethernet network configured with PFC and ECN."
    assert console.publish_reply(handoff.question, reply, "roce").endswith("(published).")
    [entry] = store.staff_entries(status="published")
    assert (entry.question, entry.slug) == ("Does RoCE need a lossless network?", "roce")
    answer = bot.ask("Does RoCE need a lossless network?")
    assert answer.text.startswith("RoCE runs best on a lossless Ethernet network")
    assert staff.SUPPORT_NOTE in answer.text
    assert console.publish_reply("q?", "It does. This is why.", "roce").startswith("Not saved")

    assert console.forget_person("ana@example.com") == (
        "Deleted that address from 1 row(s) of the log.")
    assert console.forget_person("").startswith("Not done")
    assert console.delete_request(handoff.id) == f"Request {handoff.id} is deleted."
    assert console.delete_request(handoff.id) == f"There is no request {handoff.id}."


def test_the_form_submit_is_admitted_like_a_question(fake_bot, store):
    from assistant.web.edge import MountPolicy

    page = ChatPage(fake_bot, store, fake_bot.settings)
    blocks = page.build()
    config = blocks.get_config_file()
    ids = {c["id"]: c.get("props", {}).get("elem_id") for c in config["components"]}
    sends = {d["id"] for d in config["dependencies"]
             if any(ids.get(t[0]) in ("handoff-send", "handoff-email") for t in d["targets"])}
    assert len(sends) == 2 and sends <= page.question_events
    policy = MountPolicy.of("/", blocks, page.question_events)
    assert sends <= policy.question_events


# -- through Gradio's queue, on loopback -------------------------------------------------------

@pytest.mark.integration
def test_handoffs_through_the_queue_count_against_the_rate_limit(fake_bot, store):
    import httpx
    from test_ui import dependency, gradio_event, serve

    from assistant.web.app import create_app

    settings = fake_bot.settings.replace(rate_limit_per_minute=1)
    with serve(create_app(fake_bot, store, settings=settings)) as base:
        config = httpx.get(base + "/widget/config", timeout=30).json()
        send = dependency(config, "handoff-send", "click")
        session = uuid.uuid4().hex
        messages = gradio_event(base + "/widget", session, send,
                                ["Which NICs do RoCE?", "ana@example.com", None, None])
        outputs = messages[-1]["output"]["data"]
        assert outputs[3].startswith("Thank you")
        assert [h.question for h in store.handoffs()] == ["Which NICs do RoCE?"]
        with pytest.raises(httpx.HTTPStatusError) as refused:
            gradio_event(base + "/widget", session, send, ["Again?", None, None, None])
        assert refused.value.response.status_code == 429
        assert len(store.handoffs()) == 1
