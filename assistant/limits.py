"""Abuse limits: per-client question rate, failed admin logins, who the client is."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field


@dataclass
class RateLimiter:
    """A sliding-window limit of `limit` events per `window_s` seconds for each key.

    Example:
        >>> rl = RateLimiter(limit=20, window_s=60)
        >>> rl.allow("session:abc")
        True
    """

    limit: int
    window_s: float = 60.0
    #: An "ip:" key allows this many times the limit: one office or school shares an IP.
    ip_factor: int = 5
    _events: dict[str, deque] = field(default_factory=lambda: defaultdict(deque))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def allow(self, *keys: str, now: float | None = None) -> bool:
        """Record one event for every key if all are under the limit; else record nothing."""
        if self.limit <= 0:
            return True
        now = time.monotonic() if now is None else now
        with self._lock:
            queues = [self._events[k] for k in keys if k]
            for q in queues:
                while q and now - q[0] >= self.window_s:
                    q.popleft()
            limits = [self.limit * (self.ip_factor if k.startswith("ip:") else 1)
                      for k in keys if k]
            if any(len(q) >= lim for q, lim in zip(queues, limits, strict=True)):
                return False
            for q in queues:
                q.append(now)
            if len(self._events) > 50_000:  # forget idle clients so memory stays bounded
                for key in [k for k, q in self._events.items() if not q]:
                    del self._events[key]
            return True


def client_ip(peer: str | None, forwarded_for: str | None, trusted_proxies: str) -> str:
    """Return the visitor's IP: the peer's, or X-Forwarded-For's only behind a trusted proxy."""
    peer = (peer or "").strip()
    trusted = {p.strip() for p in trusted_proxies.split(",") if p.strip()}
    if forwarded_for and peer in trusted:
        # The right-most address not belonging to our own proxies is the client.
        for hop in reversed([h.strip() for h in forwarded_for.split(",") if h.strip()]):
            if hop not in trusted and _is_ip(hop):
                return hop
    return peer


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


def password_ok(given: str, expected: str) -> bool:
    """Compare a password in constant time (an empty expected password never matches)."""
    if not expected:
        return False
    a = hashlib.sha256(given.encode("utf-8", "ignore")).digest()
    b = hashlib.sha256(expected.encode("utf-8", "ignore")).digest()
    return hmac.compare_digest(a, b)


@dataclass
class LoginGuard:
    """Checks admin logins in constant time; a client is locked out after repeated failures."""

    password: str
    max_failures: int = 5
    window_s: float = 300.0
    _failures: dict[str, deque] = field(default_factory=lambda: defaultdict(deque))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def locked(self, client: str, now: float | None = None) -> bool:
        """Return True while a client has too many recent failures."""
        now = time.monotonic() if now is None else now
        with self._lock:
            q = self._failures[client]
            while q and now - q[0] >= self.window_s:
                q.popleft()
            return len(q) >= self.max_failures

    def check(self, username: str, password: str, client: str = "") -> bool:
        """Return True for the right credentials, unless the client is locked out."""
        if self.locked(client):
            return False
        ok = password_ok(password or "", self.password) & hmac.compare_digest(
            (username or "").encode("utf-8", "ignore"), b"admin")
        if not ok:
            with self._lock:
                self._failures[client].append(time.monotonic())
        return ok
