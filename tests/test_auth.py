"""The console's sign-in and its defences against cross-site requests (issue 21, item 1):
a change under /admin takes only JSON, from the console's own origin, with the session's
CSRF token. The fast in-memory assistant stands in for the model; the browser test of the
same attack is in test_browser.py."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from assistant.handoff import validate
from assistant.store import Store
from assistant.web.app import create_app
from assistant.web.auth import ConsoleAuth

PASSWORD = "s3cret-pass"
ORIGIN = "https://testserver"
QUESTION = "How much does an InfiniBand port cost?"
ANSWER = ("An InfiniBand port usually costs more than an Ethernet port of the same speed. "
          "Most of the extra cost buys lower latency and lossless transport.")
STAFF = json.dumps({"question": QUESTION, "answer": ANSWER, "slug": "infiniband",
                    "publish": False})


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return Store(tmp_path_factory.mktemp("auth") / "log.sqlite3")


@pytest.fixture(scope="module")
def app(fake_bot, store):
    """The app with the console on (one for the module: building it takes a second)."""
    settings = fake_bot.settings.replace(admin_password=PASSWORD, rate_limit_per_minute=1000)
    return create_app(fake_bot, store, settings=settings)


@pytest.fixture
def console(app, store):
    """A client signed in afresh, and its CSRF token ("" before there was one); the test
    must leave no staff answer behind."""
    with TestClient(app, base_url=ORIGIN, raise_server_exceptions=False) as client:
        login = client.post("/admin/login", data={"username": "admin", "password": PASSWORD})
        assert login.status_code == 200
        csrf = client.get("/admin/csrf")
        yield client, (csrf.json()["token"] if csrf.status_code == 200 else "")
    for entry in store.staff_entries():
        store.delete_staff_entry(entry.id)


def _post(client, path, body=STAFF, **headers):
    return client.post(path, content=body.encode() if isinstance(body, str) else body,
                       headers=headers)


def test_a_text_plain_form_body_changes_nothing(console, store):
    client, token = console
    handoff = store.add_handoff(validate("Is RoCE routable?", "ana@example.com"))
    # What an auto-submitting <form enctype="text/plain"> on another port sends.
    form = STAFF[:-1] + ', "x": "="}'
    responses = [
        _post(client, "/admin/staff", form, **{"content-type": "text/plain", "origin": ORIGIN,
                                               "x-csrf-token": token}),
        _post(client, f"/admin/inbox/{handoff.id}/delete", b"",
              **{"content-type": "text/plain", "origin": ORIGIN, "x-csrf-token": token}),
        _post(client, "/admin/inbox/forget", '{"email": "ana@example.com"}',
              **{"content-type": "application/x-www-form-urlencoded", "origin": ORIGIN,
                 "x-csrf-token": token}),
    ]
    assert [r.status_code for r in responses] == [415] * 3
    assert "application/json" in responses[0].json()["detail"]
    assert store.staff_entries() == [] and store.handoff(handoff.id).email == "ana@example.com"


@pytest.mark.parametrize("headers", [
    {"origin": "http://testserver:8081"},            # a sibling origin: same site, other port
    {"origin": "http://testserver"},                 # another scheme
    {"origin": "https://evil.example"},
    {"origin": "null"},
    {},                                              # no Origin and no Sec-Fetch-Site
    {"sec-fetch-site": "same-site", "origin": ORIGIN},
    {"sec-fetch-site": "cross-site"},
])
def test_a_change_from_another_origin_is_refused(console, store, headers):
    client, token = console
    response = _post(client, "/admin/staff", **{"content-type": "application/json",
                                                 "x-csrf-token": token, **headers})
    assert response.status_code == 403 and "origin" in response.json()["detail"].lower()
    assert store.staff_entries() == []


@pytest.mark.parametrize("token", [None, "", "forged", "other-session"])
def test_a_change_without_the_sessions_token_is_refused(console, store, token):
    client, right = console
    if token == "other-session":  # a token valid for another sign-in is not this one's
        other = TestClient(client.app, base_url=ORIGIN)
        other.post("/admin/login", data={"username": "admin", "password": PASSWORD})
        token = other.get("/admin/csrf").json()["token"] if right else "x"
        assert token != right
    headers = {"content-type": "application/json", "origin": ORIGIN}
    if token is not None:
        headers["x-csrf-token"] = token
    response = _post(client, "/admin/staff", **headers)
    assert response.status_code == 403 and "token" in response.json()["detail"].lower()
    assert store.staff_entries() == []


def test_the_consoles_own_events_need_the_token_too(console):
    client, token = console
    config = client.get("/admin/config").json()
    refresh = next(d["id"] for d in config["dependencies"] if d.get("api_name") == "refresh")
    join = json.dumps({"data": [], "fn_index": refresh, "session_hash": "s", "trigger_id": None,
                       "event_data": None})
    base = {"content-type": "application/json", "origin": ORIGIN}
    assert _post(client, "/admin/gradio_api/queue/join", join, **base).status_code == 403
    allowed = _post(client, "/admin/gradio_api/queue/join", join, **base, **{
        "x-csrf-token": token, "sec-fetch-site": "same-origin"})
    assert allowed.status_code == 200 and "event_id" in allowed.json()


def test_the_console_page_and_scripts_get_the_token(console, store):
    client, token = console
    assert len(token) >= 32
    csrf = client.get("/admin/csrf")
    assert csrf.headers["cache-control"] == "no-store"
    page = client.get("/admin/").text
    assert f'<meta name="assistant-csrf" content="{token}">' in page
    assert 'src="/admin/console.js"' in page
    script = client.get("/admin/console.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert "X-CSRF-Token" in script.text
    made = _post(client, "/admin/staff", **{"content-type": "application/json",
                                             "origin": ORIGIN, "x-csrf-token": token})
    assert made.status_code == 200 and made.json()["status"] == "draft"
    login = client.post("/admin/login", data={"username": "admin", "password": PASSWORD},
                        headers={"accept": "application/json"})
    assert login.json()["csrf"] and login.json()["csrf"] != token  # a new session, a new token
    with TestClient(client.app, base_url=ORIGIN) as anonymous:
        assert anonymous.get("/admin/csrf").status_code == 401
        assert anonymous.get("/admin/console.js").status_code == 401


def test_each_session_has_its_own_token_which_ends_with_it():
    auth = ConsoleAuth("s3cret")
    a, _ = auth.login("admin", "s3cret", "ip1")
    b, _ = auth.login("admin", "s3cret", "ip2")
    assert auth.csrf_token(a) and auth.csrf_token(a) != auth.csrf_token(b)
    assert auth.check_csrf(a, auth.csrf_token(a)) and not auth.check_csrf(a, auth.csrf_token(b))
    assert not auth.check_csrf(a, "") and not auth.check_csrf(None, "x")
    auth.logout(a)
    assert auth.csrf_token(a) is None and not auth.check_csrf(a, "anything")
