"""Abuse limits: per-client question rate and concurrency, failed logins, who the client is."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field


@dataclass
class RateLimiter:
    """A sliding-window limit of `limit` events per `window_s` seconds for each key.

    Example:
        >>> rl = RateLimiter(limit=20, window_s=60)
        >>> rl.allow("ip:203.0.113.9")
        True
    """

    limit: int
    window_s: float = 60.0
    #: An "ip:" key allows this many times the limit (1: an IP is one visitor).
    ip_factor: int = 1
    _events: dict[str, deque] = field(default_factory=lambda: defaultdict(deque))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def allow(self, *keys: str, now: float | None = None) -> bool:
        """Record one event for every key if all are under the limit; else record nothing."""
        return self.check(*keys, now=now) == 0.0

    def check(self, *keys: str, now: float | None = None) -> float:
        """Like allow(), but return 0.0 when allowed, else the seconds until it would be."""
        if self.limit <= 0:
            return 0.0
        now = time.monotonic() if now is None else now
        with self._lock:
            queues = [(self._events[k], self._limit_of(k)) for k in keys if k]
            for q, _ in queues:
                while q and now - q[0] >= self.window_s:
                    q.popleft()
            waits = [q[len(q) - lim] + self.window_s - now for q, lim in queues if len(q) >= lim]
            if waits:
                return max(0.001, max(waits))
            for q, _ in queues:
                q.append(now)
            if len(self._events) > 50_000:  # forget idle clients so memory stays bounded
                for key in [k for k, q in self._events.items() if not q]:
                    del self._events[key]
            return 0.0

    def _limit_of(self, key: str) -> int:
        return self.limit * (self.ip_factor if key.startswith("ip:") else 1)


@dataclass
class ConcurrencyCap:
    """At most `limit` requests in flight per client; a lease not returned expires.

    A question admitted to Gradio's queue is answered later, by a handler that returns the
    lease when it finishes; a job the queue drops never returns it, so leases expire after
    `lease_s` seconds instead of leaking.

    Example:
        >>> cap = ConcurrencyCap(limit=2)
        >>> cap.acquire("203.0.113.9"), cap.acquire("203.0.113.9"), cap.acquire("203.0.113.9")
        (True, True, False)
    """

    limit: int
    lease_s: float = 120.0
    _leases: dict[str, list[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def acquire(self, client: str, now: float | None = None) -> bool:
        """Take a lease for the client if it has fewer than `limit`; return whether it did."""
        if self.limit <= 0:
            return True
        now = time.monotonic() if now is None else now
        with self._lock:
            leases = [t for t in self._leases.get(client, []) if now - t < self.lease_s]
            if len(leases) >= self.limit:
                self._leases[client] = leases
                return False
            self._leases[client] = leases + [now]
            return True

    def release(self, client: str) -> None:
        """Return the client's oldest lease (nothing happens if it holds none)."""
        with self._lock:
            leases = self._leases.get(client)
            if leases:
                leases.pop(0)
            if not leases:
                self._leases.pop(client, None)

    def in_flight(self, client: str) -> int:
        """Return how many leases the client holds."""
        with self._lock:
            return len(self._leases.get(client, []))


@dataclass(frozen=True)
class Refusal:
    """Why a question was not admitted, and when to try again."""

    reason: str  # "rate", "concurrency" or "queued"
    retry_after_s: int


@dataclass
class Admission:
    """The per-client limits every question passes before it is queued or answered, and
    those every event entering a page's queue passes (questions, page loads, thumbs ...).

    Shared by the chat, the widget, Gradio's API and the JSON API, so that a client's questions
    are counted once wherever they arrive.

    Example:
        >>> gate = Admission(RateLimiter(20), ConcurrencyCap(4), RateLimiter(120), 8)
        >>> gate.admit("203.0.113.9") is None        # admitted; release() when answered
        True
        >>> gate.admit_event("203.0.113.9", queued=8).reason
        'queued'
    """

    rate: RateLimiter
    concurrency: ConcurrencyCap
    events: RateLimiter = field(default_factory=lambda: RateLimiter(0))
    max_queued: int = 0  # a client's events waiting or running in the queues; 0: no cap

    def admit_event(self, client: str, queued: int) -> Refusal | None:
        """Admit one event into a page's queue from a client that has `queued` there
        already (None), or say why not."""
        if self.max_queued > 0 and queued >= self.max_queued:
            return Refusal("queued", 2)
        wait = self.events.check(f"ip:{client}")
        if wait:
            return Refusal("rate", max(1, math.ceil(wait)))
        return None

    def admit(self, client: str) -> Refusal | None:
        """Admit one question from a client (None), or say why not."""
        if not self.concurrency.acquire(client):
            return Refusal("concurrency", 2)
        wait = self.rate.check(f"ip:{client}")
        if wait:
            self.concurrency.release(client)
            return Refusal("rate", max(1, math.ceil(wait)))
        return None

    def release(self, client: str) -> None:
        """Mark one of the client's admitted questions as finished."""
        self.concurrency.release(client)


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
    """Checks admin logins in constant time, with two brakes on guessing.

    A client is locked out after `max_failures` failures in `window_s`; and after
    `max_global_failures` failures from all clients together (many clients guessing at once)
    every client that has failed recently waits until the window has passed. A client with no
    recent failure may still try, so the admin is not locked out by others' guessing; one wrong
    guess from it during the brake and it waits too (a guessing botnet gets one try per
    address per window, not five).
    """

    password: str
    max_failures: int = 5
    window_s: float = 300.0
    max_global_failures: int = 30
    _failures: dict[str, deque] = field(default_factory=lambda: defaultdict(deque))
    _all: deque = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def locked(self, client: str, now: float | None = None) -> bool:
        """Return True while a client must wait (its own failures, or the global brake)."""
        return self.retry_after(client, now) > 0

    def retry_after(self, client: str, now: float | None = None) -> float:
        """Return the seconds until the client may try again (0.0: now)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            own, everyone = self._failures[client], self._all
            for q in (own, everyone):
                while q and now - q[0] >= self.window_s:
                    q.popleft()
            waits = []
            if self.max_failures > 0 and len(own) >= self.max_failures:
                waits.append(own[len(own) - self.max_failures] + self.window_s - now)
            if own and self.max_global_failures > 0 and len(everyone) >= self.max_global_failures:
                waits.append(everyone[len(everyone) - self.max_global_failures]
                             + self.window_s - now)
            if not own:
                del self._failures[client]
            return max(waits, default=0.0)

    def braking(self, now: float | None = None) -> bool:
        """Return True while the global brake is on (too many failures from everywhere)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            while self._all and now - self._all[0] >= self.window_s:
                self._all.popleft()
            return 0 < self.max_global_failures <= len(self._all)

    def check(self, username: str, password: str, client: str = "",
              now: float | None = None) -> bool:
        """Return True for the right credentials, unless the client must wait."""
        now = time.monotonic() if now is None else now
        if self.locked(client, now):
            return False
        ok = password_ok(password or "", self.password) & hmac.compare_digest(
            (username or "").encode("utf-8", "ignore"), b"admin")
        if not ok:
            with self._lock:
                self._failures[client].append(now)
                self._all.append(now)
        return ok
