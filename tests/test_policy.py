"""What responses carry (issue 21, weak spots): a real CSP with a fresh nonce on Gradio's
inline scripts, no-store for the console and the pages, a Vary where the root URL follows a
proxy, and X-Forwarded-Host/Proto believed only from trusted proxies. The app runs in-process
(TestClient) over the fast in-memory assistant; the browser's view of the same policy is in
test_browser.py."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from assistant.store import Store
from assistant.web.app import create_app

PASSWORD = "s3cret-pass"
NONCE = re.compile(r"'nonce-([A-Za-z0-9_-]{16,})'")


@pytest.fixture(scope="module")
def client(fake_bot, tmp_path_factory):
    """The app, trusting the test client's own address as a proxy."""
    settings = fake_bot.settings.replace(admin_password=PASSWORD, trusted_proxies="10.9.9.9",
                                         allowed_origins="https://glossary.example")
    store = Store(tmp_path_factory.mktemp("policy") / "log.sqlite3")
    with TestClient(create_app(fake_bot, store, settings=settings),
                    base_url="http://127.0.0.1:7860") as http:
        http.post("/admin/login", data={"username": "admin", "password": PASSWORD})
        yield http


@pytest.mark.parametrize("path", ["/", "/widget/", "/admin/"])
def test_gradio_pages_get_a_real_policy_with_a_fresh_nonce(client, path):
    first, second = client.get(path), client.get(path)
    assert first.status_code == 200
    csp = first.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "object-src 'none'" in csp
    script_src = next(d for d in csp.split(";") if d.strip().startswith("script-src"))
    assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src
    [nonce] = NONCE.findall(script_src)
    assert nonce not in second.headers["content-security-policy"]  # one per response
    scripts = re.findall(r"<script\b[^>]*>", first.text)
    assert scripts and all(f'nonce="{nonce}"' in tag for tag in scripts), scripts
    assert first.headers["cache-control"] == "no-store"  # a nonce must never be replayed
    ancestors = "frame-ancestors 'self'" + ("" if path == "/admin/" else
                                            " https://glossary.example")
    assert csp.startswith(ancestors + ";")


@pytest.mark.parametrize("path", ["/admin/config", "/admin/export/recent.csv",
                                  "/admin/api/overview", "/admin/csrf", "/admin/inbox"])
def test_every_console_response_is_no_store(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    assert response.headers["cache-control"] == "no-store"


def test_the_config_varies_on_the_forwarded_headers(client):
    vary = client.get("/widget/config").headers.get("vary", "")
    assert "X-Forwarded-Host" in vary and "X-Forwarded-Proto" in vary


@pytest.mark.parametrize("path", ["/", "/widget/", "/config", "/widget/config"])
def test_a_forwarded_host_from_an_untrusted_peer_is_ignored(client, path):
    response = client.get(path, headers={"X-Forwarded-Host": "evil.example",
                                         "X-Forwarded-Proto": "https"})
    assert "evil.example" not in response.text
    assert "https://127.0.0.1" not in response.text


def test_a_forwarded_host_from_a_trusted_proxy_names_the_root(fake_bot, tmp_path):
    settings = fake_bot.settings.replace(trusted_proxies="testclient")
    with TestClient(create_app(fake_bot, Store(tmp_path / "l.sqlite3"), settings=settings),
                    base_url="http://127.0.0.1:7860") as http:
        config = http.get("/widget/config", headers={
            "X-Forwarded-Host": "assistant.example.com", "X-Forwarded-Proto": "https"}).json()
    assert config["root"].startswith("https://assistant.example.com")


def test_site_pages_keep_their_own_policy(client):
    page = client.get("/glossary/nvlink")
    assert page.status_code == 200
    assert "'nonce-" not in page.headers["content-security-policy"]
    assert "default-src 'self'" in page.headers["content-security-policy"]


def test_the_policy_names_scripts_only_from_this_origin():
    from assistant.web.policy import add_nonce, content_security_policy, public_origin

    csp = content_security_policy("/widget/", ["https://a.example"], "n0nce")
    assert "script-src 'self' 'nonce-n0nce';" in csp
    assert csp.startswith("frame-ancestors 'self' https://a.example;")
    assert content_security_policy("/admin/", ["https://a.example"]).startswith(
        "frame-ancestors 'self';")
    page = b'<script>a()</script><SCRIPT src="x.js"></SCRIPT><script nonce="old">b()</script>'
    assert add_nonce(page, "n") == (b'<script nonce="n">a()</script><SCRIPT nonce="n" '
                                    b'src="x.js"></SCRIPT><script nonce="old">b()</script>')
    scope = {"scheme": "http", "client": ("10.0.0.2", 1), "server": ("127.0.0.1", 7860),
             "headers": [(b"host", b"assistant.example.com:80"),
                         (b"x-forwarded-proto", b"https"),
                         (b"x-forwarded-host", b"evil.example")]}
    assert public_origin(scope, "") == "http://assistant.example.com"
    assert public_origin(scope, "10.0.0.2") == "https://evil.example"


def test_the_readme_gives_static_hosts_the_frame_ancestors_header():
    """A static page's <meta> CSP cannot carry frame-ancestors: the README's static-hosting
    section gives the header for nginx and Caddy."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Static export"):readme.index("## The support console")]
    assert '''add_header Content-Security-Policy "frame-ancestors 'self'" always;''' in section
    assert '''Content-Security-Policy "frame-ancestors 'self'"''' in section.split("```caddy")[1]
