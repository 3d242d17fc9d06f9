"""A public widget under attack: input caps, rate limits, origins, file routes, the queue,
admin logins, and a corpus page carrying script, rendered in a real browser."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import stat
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from test_browser import ANSWER_LINK, CHROMIUM, Watch, _ask, _open, browser  # noqa: F401
from test_ui import serve

from assistant.answer import Answer
from assistant.chain import Assistant
from assistant.corpus import load_corpus
from assistant.index import Index
from assistant.store import Store
from assistant.web import create_app

pytestmark = pytest.mark.integration
SITE = "https://glossary.example"


def _ask_http(http: httpx.Client, question, history=None, page="", headers=None) -> dict:
    # Escaped JSON, so that lone surrogates travel the way a hostile client would send them.
    body = json.dumps({"data": [question, history or [], page]}, ensure_ascii=True)
    event = http.post("/gradio_api/call/ask", content=body,
                      headers={"content-type": "application/json", **(headers or {})})
    event.raise_for_status()
    stream = http.get(f"/gradio_api/call/ask/{event.json()['event_id']}").text
    lines = stream.splitlines()
    assert "event: complete" in lines, stream
    return json.loads(lines[lines.index("event: complete") + 1][len("data:"):])[0]


@pytest.fixture(scope="module")
def site_store(tmp_path_factory):
    return Store(tmp_path_factory.mktemp("security") / "log.sqlite3")


@pytest.fixture(scope="module")
def site(bot, site_store):
    settings = bot.settings.replace(rate_limit_per_minute=20, trusted_proxies="127.0.0.1",
                                    allowed_origins=SITE, admin_password="s3cret-pass")
    with serve(create_app(bot, site_store, settings=settings)) as base:
        yield base


def _client_headers(n: int) -> dict:
    # Behind the trusted proxy (127.0.0.1), X-Forwarded-For names the visitor.
    return {"X-Forwarded-For": f"198.51.100.{n}"}


def test_a_10000_character_question_is_rejected_without_model_work(site):
    with httpx.Client(base_url=site, timeout=60) as http:
        start = time.perf_counter()
        big = _ask_http(http, "x" * 10_000, headers=_client_headers(1))
        elapsed = time.perf_counter() - start
        after = _ask_http(http, "what is nvlink?", headers=_client_headers(1))
    assert "too long" in big["answer"] and not big["citations"]
    assert "embed" not in big["timings_ms"], "the model must not see an over-long question"
    assert elapsed < 10, elapsed
    assert after["citations"] and after["retrieved"][0] == "nvlink"


@pytest.mark.parametrize("question, expected", [
    ("", "Please type a question"),
    ("\x00\x01\x02\x7f", "Please type a question"),
    ("\ud800", "Please type a question"),
    ("\udfff what is \ud800 infiniband", "InfiniBand"),
    ("a" * 5000, "too long"),
])
def test_bad_input_gets_a_clear_message(site, question, expected):
    with httpx.Client(base_url=site, timeout=60) as http:
        result = _ask_http(http, question, headers=_client_headers(2))
    assert expected in result["answer"]


def test_malformed_history_and_page_are_ignored(site):
    with httpx.Client(base_url=site, timeout=60) as http:
        result = _ask_http(http, "what is roce?", history=[{"role": "hacker"}, 7, "x"],
                           page="../../etc/passwd", headers=_client_headers(3))
    assert result["retrieved"][0] == "roce"


def test_the_21st_question_in_a_minute_is_limited_and_another_client_is_not(site):
    with httpx.Client(base_url=site, timeout=60) as http:
        answers = [_ask_http(http, "what is ecn?", headers=_client_headers(21))
                   for _ in range(20)]
        limited = http.post("/gradio_api/call/ask", json={"data": ["what is ecn?", [], ""]},
                            headers=_client_headers(21))
        other = _ask_http(http, "what is ecn?", headers=_client_headers(22))
    assert all(a["citations"] for a in answers)
    assert limited.status_code == 429 and 1 <= int(limited.headers["retry-after"]) <= 60
    assert "faster than I can answer" in limited.json()["answer"]
    assert limited.json()["kind"] == "rate_limited" and limited.json()["refused"] is True
    assert other["citations"]


def test_forwarded_for_from_an_untrusted_peer_is_ignored(bot, tmp_path):
    settings = bot.settings.replace(rate_limit_per_minute=1, trusted_proxies="")
    with serve(create_app(bot, Store(tmp_path / "l.sqlite3"), settings=settings)) as base:
        with httpx.Client(base_url=base, timeout=60) as http:
            first = _ask_http(http, "what is ecn?", headers=_client_headers(31))
            spoofed = http.post("/gradio_api/call/ask", json={"data": ["what is ecn?", [], ""]},
                                headers=_client_headers(32))
    assert first["citations"] and spoofed.status_code == 429


def test_other_origins_are_not_reflected_in_cors_headers(site):
    with httpx.Client(base_url=site, timeout=30) as http:
        evil = http.get("/gradio_api/info", headers={"Origin": "https://evil.example"})
        good = http.get("/gradio_api/info", headers={"Origin": SITE})
        pre = http.options("/gradio_api/call/ask", headers={
            "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in evil.headers
    assert good.headers.get("access-control-allow-origin") == SITE
    assert pre.headers.get("access-control-allow-origin") != "https://evil.example"


@pytest.mark.parametrize("path", [
    "/gradio_api/file=/etc/passwd", "/file=/etc/passwd", "/gradio_api/file=../../../etc/passwd",
    "/widget/gradio_api/file=/etc/passwd", "/static/../../../../etc/passwd",
    "/embed-demo/../../etc/passwd", "/gradio_api/file=" + "%2e%2e%2f" * 8 + "etc/passwd",
    "/assets/..%2f..%2f..%2f..%2fetc%2fpasswd",
])
def test_file_routes_expose_nothing_outside_the_app(site, path):
    with httpx.Client(base_url=site, timeout=30) as http:
        response = http.get(path)
    assert "root:" not in response.text
    assert response.status_code in (400, 403, 404, 405) or "root:" not in response.text


def test_failed_admin_logins_are_rate_limited_per_client(site):
    with httpx.Client(base_url=site, timeout=30) as http:
        for _ in range(5):
            bad = http.post("/admin/login", data={"username": "admin", "password": "nope"},
                            headers=_client_headers(41))
            assert bad.status_code >= 400
        locked = http.post("/admin/login", data={"username": "admin",
                                                  "password": "s3cret-pass"},
                           headers=_client_headers(41))
        fine = http.post("/admin/login", data={"username": "admin", "password": "s3cret-pass"},
                         headers=_client_headers(42))
    assert locked.status_code >= 400
    assert fine.status_code == 200


class _Slow:
    """An assistant that takes a while to answer, to fill the queue."""

    def __init__(self, bot, seconds: float):
        self._bot, self._seconds = bot, seconds

    def __getattr__(self, name):
        return getattr(self._bot, name)

    def ask(self, *args, **kwargs):
        time.sleep(self._seconds)
        return self._bot.ask(*args, **kwargs)

    def stream(self, *args, **kwargs):
        time.sleep(self._seconds)
        yield from self._bot.stream(*args, **kwargs)


def test_a_full_queue_says_busy_at_once_instead_of_hanging(bot, tmp_path):
    settings = bot.settings.replace(queue_size=1, concurrency=1, rate_limit_per_minute=0,
                                    max_concurrent_per_ip=0)
    app = create_app(_Slow(bot, 4.0), Store(tmp_path / "q.sqlite3"), settings=settings)
    with serve(app) as base:
        def join(i: int) -> tuple[float, int, str]:
            with httpx.Client(base_url=base, timeout=30) as http:
                t = time.perf_counter()
                r = http.post("/gradio_api/call/ask", json={"data": [f"what is nvlink {i}",
                                                                     [], ""]})
                body = r.text
                if r.status_code == 200:
                    body = http.get(f"/gradio_api/call/ask/{r.json()['event_id']}").text
                return time.perf_counter() - t, r.status_code, body

        with ThreadPoolExecutor(6) as pool:
            results = list(pool.map(join, range(6)))
    rejected = [(t, code, body) for t, code, body in results
                if "queue" in body.lower() or "busy" in body.lower() or code >= 500]
    assert rejected, results
    # Each rejection came back at once, not after the queued answers finished.
    assert all(t < 3.0 for t, _, _ in rejected), rejected


@pytest.fixture(scope="module")
def evil_site(tmp_path_factory, settings):
    """A corpus with a page that carries HTML, script and a remote image, served for real."""
    root = tmp_path_factory.mktemp("evil")
    corpus = root / "corpus"
    (corpus / "glossary").mkdir(parents=True)
    (corpus / "lessons").mkdir()
    for slug in ("infiniband", "roce"):
        shutil.copy(settings.corpus_dir / "glossary" / f"{slug}.md", corpus / "glossary")
    text = (settings.corpus_dir / "glossary" / "nvlink.md").read_text()
    payload = ('NVLink is <img src=x onerror=alert(1)> a link <script>alert(2)</script> '
               '[click me](javascript:alert(3)) ![pixel](http://evil.example/p.png) between GPUs.')
    text = text.replace("## Definition\n\n", f"## Definition\n\n{payload}\n\n", 1)
    (corpus / "glossary" / "nvlink.md").write_text(text)
    s = settings.replace(corpus_dir=corpus, data_dir=root / "data", torch_threads=0,
                         rate_limit_per_minute=1000)
    Index(s).ingest(load_corpus(corpus), progress=False)
    bot = Assistant(s)
    assert "onerror" in bot.ask("what is nvlink?").text  # the payload reaches the answer
    with serve(create_app(bot, Store(root / "log.sqlite3"), settings=s)) as base:
        yield base


@pytest.mark.browser
def test_script_in_a_corpus_page_is_rendered_inert(evil_site, browser):  # noqa: F811
    if not CHROMIUM:
        pytest.skip("no browser")
    page, watch = _open(browser, evil_site + "/")
    _ask(page, "what is nvlink?")
    # The finished answer (the "…" placeholder while it streams has thumbs too).
    page.locator(ANSWER_LINK).first.wait_for()
    text = page.locator("#chat").inner_text()
    assert "onerror" in text  # shown as text
    hrefs = page.eval_on_selector_all("#chat a", "els => els.map(e => e.getAttribute('href'))")
    assert not [h for h in hrefs if h and h.strip().lower().startswith("javascript:")], hrefs
    images = page.eval_on_selector_all("#chat img", "els => els.map(e => e.src)")
    assert not [s for s in images if "evil" in s or s.endswith("/x")], images
    page.wait_for_timeout(500)
    assert watch.dialogs == [] and not watch.remote, (watch.dialogs, watch.remote)
    page.context.close()


def test_logging_and_answering_survive_concurrent_visitors(site):
    errors = []

    def visitor(i: int) -> None:
        try:
            with httpx.Client(base_url=site, timeout=60) as http:
                r = _ask_http(http, "what is pfc?", headers=_client_headers(100 + i))
                assert r["citations"]
        except Exception as exc:  # collected, then asserted
            errors.append(exc)

    threads = [threading.Thread(target=visitor, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors


# -- what an attack on the running widget found (issue 15): one test per finding --------------

MB = 1024 * 1024
ADMIN_LOGIN = {"username": "admin", "password": "s3cret-pass"}


def _rss_mb() -> float:
    """The resident memory of this process, which also runs the server under test."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _raw_post(base: str, path: str, length: int, body: bytes = b"", chunked: bool = False,
              headers: str = "") -> tuple[int, float]:
    """POST over a bare socket: declare `length` bytes (or send chunks), return (status, ms).

    The status line is read before the body is sent, as a client that waits for an early
    answer would; then the body is offered, and whatever the server refuses to read is
    dropped with the connection.
    """
    parts = urlsplit(base)
    framing = ("Transfer-Encoding: chunked" if chunked else f"Content-Length: {length}")
    head = (f"POST {path} HTTP/1.1\r\nHost: {parts.hostname}\r\n"
            f"Content-Type: application/json\r\n{framing}\r\n{headers}\r\n").encode()
    start = time.perf_counter()
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(head)
        if chunked:  # the cap is only found by counting: send until the server answers
            chunk = b"%x\r\n%s\r\n" % (16384, b"x" * 16384)
            try:
                for _ in range(length // 16384):
                    sock.sendall(chunk)
            except OSError:
                pass
        status_line = sock.recv(64)
        elapsed = (time.perf_counter() - start) * 1000
        if body:
            sock.settimeout(2)
            try:
                sock.sendall(body)
            except OSError:
                pass
    return int(status_line.split(b" ")[1]), elapsed


def _login(http: httpx.Client, client: int) -> httpx.Response:
    return http.post("/admin/login", data=ADMIN_LOGIN, headers=_client_headers(client))


@pytest.mark.parametrize("prefix", ["", "/widget", "/admin"])
def test_no_upload_or_file_routes_on_any_mount(site, prefix):
    with httpx.Client(base_url=site, timeout=30) as http:
        upload = http.post(f"{prefix}/gradio_api/upload",
                           files={"files": ("free-hosting.bin", b"x" * 1024)})
        others = [http.get(f"{prefix}/gradio_api/{route}").status_code for route in (
            "file=/tmp/x.bin", "file/tmp/x.bin", "proxy=http://127.0.0.1/", "upload_progress",
            "token", "app_id", "startup-events", "openapi.json", "monitoring")]
        run = http.post(f"{prefix}/gradio_api/run/ask", json={"data": ["x", [], ""]})
        v2 = http.post(f"{prefix}/gradio_api/call/v2/ask", json={"question": "x"})
    assert upload.status_code == 404 and "/tmp" not in upload.text
    assert others == [404] * len(others)
    assert run.status_code == 404 and v2.status_code == 404


def test_console_exports_are_streamed_to_signed_in_users_only(site):
    import gradio

    cache = Path(gradio.utils.get_upload_folder())
    before = set(cache.rglob("*.csv")) if cache.exists() else set()
    with httpx.Client(base_url=site, timeout=30) as http:
        _ask_http(http, "what is the secret sauce of my toaster?", headers=_client_headers(60))
        anonymous = http.get("/admin/export/recent.csv")
        assert _login(http, 60).status_code == 200
        signed_in = http.get("/admin/export/recent.csv")
        config = http.get("/admin/config").text
    after = set(cache.rglob("*.csv")) if cache.exists() else set()
    assert anonymous.status_code == 401 and "toaster" not in anonymous.text
    assert signed_in.status_code == 200 and "toaster" in signed_in.text
    assert after == before, "an export must never be copied into Gradio's file cache"
    assert '"downloadbutton"' not in config  # the console links to the export route instead
    with httpx.Client(base_url=site, timeout=30) as http:
        for prefix in ("", "/widget", "/admin"):
            leaked = http.get(f"{prefix}/gradio_api/file={cache}/0123abcd/recent.csv")
            assert leaked.status_code == 404


@pytest.mark.parametrize("path", ["/gradio_api/queue/join", "/gradio_api/call/ask",
                                  "/widget/gradio_api/queue/join", "/api/ask", "/admin/login",
                                  "/gradio_api/upload"])
def test_a_50_mb_request_gets_413_before_it_is_read(site, site_store, path):
    count = site_store.count()
    status, ms = _raw_post(site, path, 50 * MB)
    assert status == 413 and ms < 1000, (status, ms)
    assert site_store.count() == count


def test_a_chunked_body_is_cut_off_at_the_cap(site, site_store):
    count = site_store.count()
    status, _ = _raw_post(site, "/gradio_api/call/ask", 2 * MB, chunked=True)
    assert status == 413
    assert site_store.count() == count


def test_memory_stays_flat_after_100_rejected_10_mb_requests(site):
    body = b"x" * (10 * MB)
    _raw_post(site, "/gradio_api/queue/join", len(body), body)  # warm up the code path
    before = _rss_mb()
    statuses = [_raw_post(site, path, len(body), body)[0] for path in (
        "/gradio_api/queue/join", "/gradio_api/call/chat", "/api/ask", "/widget/") * 25]
    after = _rss_mb()
    assert statuses == [413] * 100
    assert after - before < 50, f"RSS grew from {before:.0f} MB to {after:.0f} MB"


def test_the_log_keeps_the_cleaned_capped_question(site, site_store):
    long_question = "what is nvlink? " + "x" * 3000
    with httpx.Client(base_url=site, timeout=60) as http:
        answer = http.post("/api/ask", json={"question": long_question},
                           headers=_client_headers(70)).json()
        surrogate = _ask_http(http, "\udfff what is \ud800 rocev2", headers=_client_headers(70))
    assert "too long" in answer["answer"]
    rows = site_store.recent(10)
    [long_row] = [r for r in rows if r.question.startswith("what is nvlink? xxx")]
    assert len(long_row.question) == 1000 and long_row.question_chars == len(long_question)
    assert surrogate["citations"]
    assert [r for r in rows if r.question == "what is rocev2"], "logged after cleaning"


def test_page_sent_as_a_list_gets_a_clear_error(site):
    with httpx.Client(base_url=site, timeout=60) as http:
        event = http.post("/gradio_api/call/ask", json={"data": ["what is roce?", [],
                                                                 ["nvlink"]]},
                          headers=_client_headers(80))
        stream = http.get(f"/gradio_api/call/ask/{event.json()['event_id']}").text
        api = http.post("/api/ask", json={"question": "what is roce?", "page": ["nvlink"]},
                        headers=_client_headers(80))
    assert "event: error" in stream and "page must be a string" in stream, stream
    assert "unhashable" not in stream
    assert api.status_code == 422 and api.json()["detail"][0]["loc"] == ["body", "page"]


def test_unknown_endpoints_are_404_not_500(site):
    with httpx.Client(base_url=site, timeout=30) as http:
        responses = [
            http.post("/gradio_api/call/x", json={"data": []}),
            http.get("/gradio_api/call/x/0123"),
            http.post("/widget/gradio_api/call/nope", json={"data": []}),
            http.post("/gradio_api/queue/join", json={"data": [], "fn_index": 9999,
                                                      "session_hash": "s"}),
            http.post("/gradio_api/queue/join", json={"data": [], "fn_index": [1],
                                                      "session_hash": "s"}),
            http.post("/gradio_api/queue/join", content=b"not json"),
        ]
    assert [r.status_code for r in responses] == [404] * len(responses)


def test_chat_events_count_against_the_visitor_whatever_the_session(bot, tmp_path):
    settings = bot.settings.replace(rate_limit_per_minute=3)
    with serve(create_app(bot, Store(tmp_path / "c.sqlite3"), settings=settings)) as base:
        with httpx.Client(base_url=base, timeout=60) as http:
            config = http.get("/config").json()
            submit = next(d["id"] for d in config["dependencies"] if d.get("api_name") == "chat")
            joins = [http.post("/gradio_api/queue/join", json={
                "data": ["what is nvlink?", None, None], "fn_index": submit,
                "session_hash": f"rotated{i}", "trigger_id": None}) for i in range(4)]
            like = next(d["id"] for d in config["dependencies"]
                        if any(t[1] == "like" for t in d["targets"]))
            not_a_question = http.post("/gradio_api/queue/join", json={
                "data": [None], "fn_index": like, "session_hash": "rotated9",
                "event_data": {"index": 0, "value": "x", "liked": True}, "trigger_id": None})
    assert [j.status_code for j in joins] == [200, 200, 200, 429]
    assert "faster than I can answer" in joins[3].json()["detail"]  # what the widget shows
    assert not_a_question.status_code == 200  # thumbs are not questions


def test_a_noisy_client_is_refused_at_admission_and_others_are_answered(bot, tmp_path):
    settings = bot.settings.replace(queue_size=4, concurrency=1, rate_limit_per_minute=20,
                                    max_concurrent_per_ip=2, trusted_proxies="127.0.0.1")
    app = create_app(_Slow(bot, 0.3), Store(tmp_path / "n.sqlite3"), settings=settings)
    with serve(app) as base:
        def noisy(i: int) -> tuple[int, float, str | None]:
            with httpx.Client(base_url=base, timeout=30) as http:
                t = time.perf_counter()
                r = http.post("/gradio_api/call/ask", json={"data": [f"ecn {i}", [], ""]},
                              headers=_client_headers(90))
                return r.status_code, time.perf_counter() - t, r.headers.get("retry-after")

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(noisy, range(60)))
        with httpx.Client(base_url=base, timeout=60) as http:
            quiet = _ask_http(http, "what is roce?", headers=_client_headers(91))
    refused = [r for r in results if r[0] == 429]
    assert {code for code, _, _ in results} <= {200, 429}, results  # never a full queue
    assert len(refused) >= 40 and all(t < 2.0 and after for _, t, after in refused)
    assert quiet["citations"]


def test_the_console_token_is_not_readable_and_a_session_can_end(site):
    with httpx.Client(base_url=site, timeout=30) as http:
        login = _login(http, 100)
        cookie = login.headers["set-cookie"].lower()
        token_route = http.get("/admin/gradio_api/token")
        assert http.get("/admin/config").status_code == 200
        http.get("/admin/logout")
        after = http.get("/admin/config")
    assert "httponly" in cookie and "samesite=strict" in cookie and "max-age=28800" in cookie
    assert token_route.status_code == 404
    assert after.status_code == 401


def test_a_global_brake_stops_guessing_from_many_clients_not_the_admin(bot, tmp_path):
    settings = bot.settings.replace(admin_password="s3cret-pass", login_brake=10,
                                    trusted_proxies="127.0.0.1")
    with serve(create_app(bot, Store(tmp_path / "g.sqlite3"), settings=settings)) as base:
        with httpx.Client(base_url=base, timeout=30) as http:
            guesses = [http.post("/admin/login", data={"username": "admin", "password": "x"},
                                 headers=_client_headers(110 + i)) for i in range(10)]
            guesser = _login(http, 110)  # a client that guessed: braked, right password or not
            another = http.post("/admin/login", data={"username": "admin", "password": "y"},
                                headers=_client_headers(131))  # one wrong guess, braked at once
            admin = _login(http, 130)  # no recent failure and the right password: let in
    # The tenth failure puts the brake on: its own client is told to wait at once.
    assert [g.status_code for g in guesses] == [401] * 9 + [429]
    assert guesser.status_code == 429 and int(guesser.headers["retry-after"]) > 0
    assert another.status_code == 429 and int(another.headers["retry-after"]) > 0
    assert admin.status_code == 200


def test_the_log_and_the_salt_are_private(tmp_path):
    old = os.umask(0o022)
    try:
        store = Store(tmp_path / "data" / "log.sqlite3")
        store.log("what is nvlink?", Answer(text="NVLink."), ip="203.0.113.9")
        loose = tmp_path / "old" / "log.sqlite3"
        loose.parent.mkdir()
        sqlite3.connect(loose).close()
        loose.chmod(0o644)
        Store(loose).count()
    finally:
        os.umask(old)
    for name in ("log.sqlite3", "log.sqlite3-wal", "log.sqlite3-shm", ".ip-salt"):
        path = tmp_path / "data" / name
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, name
    assert stat.S_IMODE(loose.stat().st_mode) == 0o600  # an older log is tightened


def test_retention_and_stale_exports_are_cleaned_at_start(bot, tmp_path):
    store = Store(tmp_path / "r.sqlite3")
    ids = [store.log(f"question {i}", Answer(text="a"), ip="203.0.113.9") for i in range(3)]
    store.feedback(ids[0], -1, "old")
    store.feedback(ids[2], 1, "new")
    old = (datetime.now(UTC) - timedelta(days=91)).isoformat(timespec="seconds")
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE questions SET created = ? WHERE id IN (?, ?)", (old, ids[0], ids[1]))
    conn.commit()
    conn.close()
    stale = Path(tempfile.mkdtemp(prefix="assistant-console-"))
    (stale / "recent.csv").write_text("id,question\n1,a visitor's question\n")
    settings = bot.settings.replace(retention_days=90, admin_password="pw")
    with serve(create_app(bot, store, settings=settings)) as base:
        kept = [row.id for row in store.recent(10)]
        with httpx.Client(base_url=base, timeout=30) as http:
            http.post("/admin/login", data={"username": "admin", "password": "pw"})
            config = http.get("/admin/config").text
    assert kept == [ids[2]]
    assert [f.question_id for f in store.feedback_rows()] == [ids[2]]
    assert not stale.exists()
    assert "deleted after 90 days" in config  # the console states the policy


def test_connections_slow_to_send_headers_are_closed(bot, tmp_path):
    settings = bot.settings.replace(header_timeout_s=1.0, keep_alive_s=1)
    app = create_app(bot, Store(tmp_path / "h.sqlite3"), settings=settings)
    with serve(app, settings=settings) as base:
        address = (urlsplit(base).hostname, urlsplit(base).port)
        silent = socket.create_connection(address)
        partial = socket.create_connection(address)
        partial.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        idle = socket.create_connection(address)
        idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        response = b""
        while not response.endswith(b"}"):  # the whole response, head and body
            response += idle.recv(4096)
        assert response.startswith(b"HTTP/1.1 200")
        time.sleep(2.5)
        for sock in (silent, partial, idle):
            sock.settimeout(3)
            try:
                assert sock.recv(1024) == b""  # closed by the server
            except ConnectionResetError:
                pass
            sock.close()


def test_the_console_cookie_is_secure_behind_a_tls_proxy(site):
    with httpx.Client(base_url=site, timeout=30) as http:
        tls = http.post("/admin/login", data=ADMIN_LOGIN, headers={
            **_client_headers(140), "X-Forwarded-Proto": "https"})
    with httpx.Client(base_url=site, timeout=30) as http:
        # Only a trusted proxy is believed: here the peer is 127.0.0.1, which the site trusts.
        plain = http.post("/admin/login", data=ADMIN_LOGIN, headers=_client_headers(141))
    assert "secure" in tls.headers["set-cookie"].lower()
    assert "secure" not in plain.headers["set-cookie"].lower()


# -- what the second attack found (issue 21) -----------------------------------------------------

def test_a_request_body_that_stalls_is_closed(fake_bot, tmp_path):
    settings = fake_bot.settings.replace(header_timeout_s=1.0)
    app = create_app(fake_bot, Store(tmp_path / "b.sqlite3"), settings=settings)
    with serve(app, settings=settings) as base:
        address = (urlsplit(base).hostname, urlsplit(base).port)
        slow = socket.create_connection(address)
        slow.sendall(b"POST /api/ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n")
        start, closed_after = time.monotonic(), None
        slow.settimeout(0.4)
        while time.monotonic() - start < 8:  # one byte every 0.4 s: 40 s for the body
            try:
                slow.sendall(b" ")
                if slow.recv(1024) == b"":
                    closed_after = time.monotonic() - start
                    break
            except TimeoutError:
                continue
            except OSError:  # reset or broken pipe: closed by the server
                closed_after = time.monotonic() - start
                break
        slow.close()
        fine = httpx.post(base + "/api/ask", json={"question": "what is roce?"}, timeout=30)
    assert closed_after is not None and closed_after < 4, closed_after
    assert fine.status_code == 200  # a body sent at once is answered


def test_the_access_log_names_clients_by_a_salted_hash_never_an_ip(fake_bot, tmp_path):
    import logging

    from assistant.web.serve import server_config

    store = Store(tmp_path / "a.sqlite3")
    settings = fake_bot.settings.replace(trusted_proxies="127.0.0.1")
    assert server_config(create_app(fake_bot, store, settings=settings),
                         settings).access_log is False  # uvicorn's own names raw IPs
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    loggers = [logging.getLogger(name) for name in ("assistant.access", "")]
    with serve(create_app(fake_bot, store, settings=settings), settings=settings,
               log_level="info") as base:
        # uvicorn writes its access log (raw IPs) only when that logger has a handler.
        assert not logging.getLogger("uvicorn.access").hasHandlers()
        for logger in loggers:  # after uvicorn has configured logging
            logger.addHandler(handler)
        try:
            httpx.get(base + "/healthz", headers={"X-Forwarded-For": "198.51.100.7"})
        finally:
            for logger in loggers:
                logger.removeHandler(handler)
    lines = [r.getMessage() for r in records]
    access = [line for line in lines if "/healthz" in line]
    assert access and store.hash_ip("198.51.100.7")[:12] in access[0], lines
    assert not [line for line in lines if "198.51.100.7" in line or "127.0.0.1:" in line], lines


def _flood(base: str, config: dict, client: int, stop: threading.Event) -> list[httpx.Response]:
    """Send queue/join requests for non-question events (page load, new chat, like), each
    with a fresh session hash, from one client, 12 at a time, until told to stop."""
    events = [d["id"] for d in config["dependencies"]
              if (d.get("api_name") or "").startswith(("on_load", "on_like", "on_new_chat",
                                                        "on_restore"))]
    assert len(events) >= 4, events  # page load, like, new chat, a kept transcript restored

    def joins(worker: int) -> list[httpx.Response]:
        sent = []
        with httpx.Client(base_url=base, timeout=30) as http:
            while not stop.is_set():
                i = len(sent)
                sent.append(http.post("/gradio_api/queue/join", headers=_client_headers(client),
                                      json={"data": [None, None],
                                            "fn_index": events[i % len(events)],
                                            "session_hash": f"flood{worker}x{i}",
                                            "trigger_id": None, "event_data": {
                                                "index": 0, "value": "x", "liked": True}}))
        return sent

    with ThreadPoolExecutor(12) as pool:
        return [r for part in pool.map(joins, range(12)) for r in part]


def test_a_client_flooding_non_question_events_does_not_crowd_out_others(bot, tmp_path):
    # Room in the queue for the 10 honest visitors and the flooder's own share (8 at most).
    settings = bot.settings.replace(queue_size=24, concurrency=1, rate_limit_per_minute=1000,
                                    trusted_proxies="127.0.0.1")
    app = create_app(_Slow(bot, 0.2), Store(tmp_path / "f.sqlite3"), settings=settings)
    with serve(app) as base:
        config = httpx.get(base + "/config", timeout=30).json()

        def honest(i: int) -> list[int]:
            codes = []
            with httpx.Client(base_url=base, timeout=60) as http:
                for _ in range(3):
                    r = http.post("/gradio_api/call/ask", headers=_client_headers(150 + i),
                                  json={"data": ["what is roce?", [], ""]})
                    if r.status_code == 200:
                        http.get(f"/gradio_api/call/ask/{r.json()['event_id']}")
                    codes.append(r.status_code)
            return codes

        stop = threading.Event()
        with ThreadPoolExecutor(11) as pool:
            flood = pool.submit(_flood, base, config, 149, stop)
            time.sleep(1.0)  # the flood is under way
            questions = [c for codes in pool.map(honest, range(10)) for c in codes]
            stop.set()
            noisy = flood.result()
    codes = [r.status_code for r in noisy]
    seen = {c: codes.count(c) for c in set(codes)}
    assert questions == [200] * 30, (questions, seen)
    refused = [r for r in noisy if r.status_code == 429]
    assert len(refused) > len(noisy) / 2, seen
    assert all(int(r.headers["retry-after"]) >= 1 for r in refused)
    assert set(codes) <= {200, 429}, seen


def test_gradios_own_503_says_when_to_retry_and_not_the_queue_size(bot, tmp_path):
    settings = bot.settings.replace(queue_size=1, concurrency=1, rate_limit_per_minute=0,
                                    max_concurrent_per_ip=0, trusted_proxies="127.0.0.1")
    app = create_app(_Slow(bot, 3.0), Store(tmp_path / "q.sqlite3"), settings=settings)
    with serve(app) as base:
        def ask(i: int) -> httpx.Response:
            with httpx.Client(base_url=base, timeout=30) as http:
                return http.post("/gradio_api/call/ask", headers=_client_headers(170 + i),
                                 json={"data": [f"what is nvlink {i}", [], ""]})

        with ThreadPoolExecutor(6) as pool:
            responses = list(pool.map(ask, range(6)))
    busy = [r for r in responses if r.status_code == 503]
    assert busy, [r.status_code for r in responses]
    for r in busy:
        assert 1 <= int(r.headers["retry-after"]) <= 60
        assert r.json()["kind"] == "busy" and "Max size" not in r.text
        assert not any(ch.isdigit() for ch in r.json()["detail"]), r.json()["detail"]
