import pytest

from assistant.limits import (
    Admission,
    ConcurrencyCap,
    LoginGuard,
    RateLimiter,
    client_ip,
    password_ok,
)


def test_the_21st_question_in_a_minute_is_limited_and_others_are_not():
    rl = RateLimiter(limit=20, window_s=60)
    assert all(rl.allow("a", now=float(i)) for i in range(20))
    assert not rl.allow("a", now=20.0)
    assert rl.allow("b", now=20.0)
    assert rl.allow("a", now=61.0)  # the oldest event left the window


def test_a_limit_on_any_key_blocks_without_counting():
    rl = RateLimiter(limit=2, window_s=60, ip_factor=1)
    assert rl.allow("session:1", "ip:9", now=0)
    assert rl.allow("session:2", "ip:9", now=1)
    assert not rl.allow("session:3", "ip:9", now=2)  # same IP, new session
    assert rl.allow("session:3", "ip:8", now=2)


def test_zero_disables():
    rl = RateLimiter(limit=0)
    assert all(rl.allow("x") for _ in range(100))


def test_forwarded_for_is_trusted_only_from_a_named_proxy():
    assert client_ip("203.0.113.9", "198.51.100.1", "") == "203.0.113.9"
    assert client_ip("10.0.0.2", "198.51.100.1, 10.0.0.2", "10.0.0.2") == "198.51.100.1"
    assert client_ip("10.0.0.2", "garbage", "10.0.0.2") == "10.0.0.2"


def test_password_comparison():
    assert password_ok("s3cret", "s3cret")
    assert not password_ok("s3cre", "s3cret")
    assert not password_ok("", "")


def test_failed_logins_lock_the_client_out():
    guard = LoginGuard("s3cret", max_failures=3)
    assert not any(guard.check("admin", "wrong", "ip1") for _ in range(3))
    assert not guard.check("admin", "s3cret", "ip1")  # locked, even with the right password
    assert guard.check("admin", "s3cret", "ip2")
    assert not guard.check("root", "s3cret", "ip3")


def test_an_ip_shared_by_many_sessions_gets_more_room_than_one_session():
    rl = RateLimiter(limit=2, window_s=60, ip_factor=3)
    sessions = [rl.allow(f"chat:{i}", "ip:1", now=0) for i in range(8)]
    assert sessions == [True] * 6 + [False] * 2


def test_a_refusal_says_when_to_retry():
    rl = RateLimiter(limit=2, window_s=60)
    assert rl.check("ip:a", now=0.0) == 0.0 and rl.check("ip:a", now=10.0) == 0.0
    assert rl.check("ip:a", now=30.0) == pytest.approx(30.0)  # the first event leaves at 60
    assert rl.check("ip:a", now=60.0) == 0.0


def test_concurrency_leases_are_returned_or_expire():
    cap = ConcurrencyCap(limit=2, lease_s=100)
    assert cap.acquire("a", now=0) and cap.acquire("a", now=1)
    assert not cap.acquire("a", now=2) and cap.acquire("b", now=2)
    cap.release("a")
    assert cap.acquire("a", now=3)
    assert not cap.acquire("a", now=50)
    assert cap.acquire("a", now=101.5), "a lease never returned expires"
    cap.release("nobody")  # harmless


def test_admission_counts_rate_and_concurrency_per_client():
    gate = Admission(RateLimiter(limit=3, window_s=60), ConcurrencyCap(limit=1))
    assert gate.admit("a") is None
    busy = gate.admit("a")
    assert busy is not None and busy.reason == "concurrency"
    gate.release("a")
    assert gate.admit("a") is None
    gate.release("a")
    assert gate.admit("a") is None
    gate.release("a")
    limited = gate.admit("a")
    assert limited is not None and limited.reason == "rate" and 1 <= limited.retry_after_s <= 60
    assert gate.concurrency.in_flight("a") == 0  # a refused question holds no lease
    assert gate.admit("b") is None


def test_every_event_counts_against_the_clients_event_rate_and_queue_share():
    gate = Admission(RateLimiter(0), ConcurrencyCap(0), RateLimiter(limit=3, window_s=60),
                     max_queued=2)
    assert gate.admit_event("a", queued=0) is None
    full = gate.admit_event("a", queued=2)
    assert full is not None and full.reason == "queued" and full.retry_after_s >= 1
    assert gate.admit_event("a", queued=1) is None
    assert gate.admit_event("a", queued=0) is None
    limited = gate.admit_event("a", queued=0)
    assert limited is not None and limited.reason == "rate" and 1 <= limited.retry_after_s <= 60
    assert gate.admit_event("b", queued=1) is None  # another client is not affected
    off = Admission(RateLimiter(0), ConcurrencyCap(0))
    assert all(off.admit_event("a", queued=1000) is None for _ in range(500))


def test_a_global_brake_on_failed_logins():
    guard = LoginGuard("s3cret", max_failures=5, max_global_failures=6, window_s=300)
    for i in range(6):
        assert not guard.check("admin", "guess", f"ip{i}", now=float(i))
    # Braked: every client that failed recently waits, even with the right password...
    assert guard.retry_after("ip0", now=10.0) == pytest.approx(290.0)
    assert not guard.check("admin", "s3cret", "ip0", now=10.0)
    # ...but a client with no recent failure may try: the right password gets in,
    assert guard.retry_after("ip99", now=10.0) == 0.0
    assert guard.check("admin", "s3cret", "ip99", now=10.0)
    # and one wrong guess from it is enough to brake it too.
    assert not guard.check("admin", "guess", "ip98", now=11.0)
    assert guard.retry_after("ip98", now=12.0) == pytest.approx(289.0)
    assert guard.check("admin", "s3cret", "ip0", now=301.0)  # the window has passed
