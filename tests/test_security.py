"""A public widget under attack: input caps, rate limits, origins, file routes, the queue,
admin logins, and a corpus page carrying script, rendered in a real browser."""

from __future__ import annotations

import json
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from test_browser import CHROMIUM, Watch, _ask, _open, browser  # noqa: F401 (fixture)
from test_ui import serve

from assistant.chain import Assistant
from assistant.corpus import load_corpus
from assistant.index import Index
from assistant.store import Store
from assistant.ui import create_app

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
def site(bot, tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("security") / "log.sqlite3")
    settings = bot.settings.replace(rate_limit_per_minute=20, trusted_proxies="127.0.0.1",
                                    allowed_origins=SITE, admin_password="s3cret-pass")
    with serve(create_app(bot, store, settings=settings)) as base:
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
                   for _ in range(21)]
        other = _ask_http(http, "what is ecn?", headers=_client_headers(22))
    assert all(a["citations"] for a in answers[:20])
    assert "faster than I can answer" in answers[20]["answer"]
    assert other["citations"]


def test_forwarded_for_from_an_untrusted_peer_is_ignored(bot, tmp_path):
    settings = bot.settings.replace(rate_limit_per_minute=1, trusted_proxies="")
    with serve(create_app(bot, Store(tmp_path / "l.sqlite3"), settings=settings)) as base:
        with httpx.Client(base_url=base, timeout=60) as http:
            first = _ask_http(http, "what is ecn?", headers=_client_headers(31))
            spoofed = _ask_http(http, "what is ecn?", headers=_client_headers(32))
    assert first["citations"] and "faster than I can answer" in spoofed["answer"]


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
    settings = bot.settings.replace(queue_size=1, concurrency=1, rate_limit_per_minute=0)
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
    page.locator("#chat button[aria-label='Dislike']").first.wait_for()
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
