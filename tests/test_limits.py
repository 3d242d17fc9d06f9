from assistant.limits import LoginGuard, RateLimiter, client_ip, password_ok


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
