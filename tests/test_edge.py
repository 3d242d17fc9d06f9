"""web/edge.py: a client's parallel joins meet its cap on queued events one at a time.

A CI run of tests/test_security.py's flood (12 parallel joins from one client) once filled
Gradio's queue past the client's share: each join was checked against the events already
queued, and all of them were checked before any was queued. Here the race is made certain:
the ASGI app behind the edge queues an event only after a pause."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

from assistant.config import Settings
from assistant.limits import Admission, ConcurrencyCap, RateLimiter
from assistant.web.edge import Edge, MountPolicy

CLIENT = "203.0.113.9"


def _edge(max_queued: int) -> tuple[Edge, dict]:
    queued: dict[int, SimpleNamespace] = {}
    visitor = SimpleNamespace(client=SimpleNamespace(host=CLIENT), headers={})

    async def gradio(scope, receive, send):
        await receive()
        await asyncio.sleep(0.01)  # Gradio reads and checks the join before queueing it
        queued[len(queued)] = SimpleNamespace(request=visitor)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    policy = MountPolicy("/", frozenset({1}), queue=SimpleNamespace(event_ids_to_events=queued))
    admission = Admission(RateLimiter(0), ConcurrencyCap(0), RateLimiter(0), max_queued)
    return Edge(gradio, origins=[], mounts=[policy], admission=admission,
                settings=Settings.from_env({})), queued


async def _join(edge: Edge, i: int) -> int:
    body = json.dumps({"data": [], "fn_index": 1, "session_hash": f"s{i}"}).encode()
    scope = {"type": "http", "method": "POST", "path": "/gradio_api/queue/join",
             "query_string": b"", "client": (CLIENT, 40000 + i),
             "headers": [(b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())]}
    sent = iter([{"type": "http.request", "body": body, "more_body": False}])
    status = []

    async def receive():
        return next(sent, {"type": "http.disconnect"})

    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])

    await edge(scope, receive, send)
    return status[0]


def test_parallel_joins_from_one_client_cannot_all_pass_its_cap():
    edge, queued = _edge(max_queued=4)

    async def flood():
        return await asyncio.gather(*(_join(edge, i) for i in range(12)))

    codes = asyncio.run(flood())
    assert sorted(codes) == [200] * 4 + [429] * 8, codes
    assert len(queued) == 4
    assert edge._joining == {}  # every place held during a join was given back


def test_joins_one_after_another_fill_the_cap_and_no_more():
    edge, queued = _edge(max_queued=3)
    codes = [asyncio.run(_join(edge, i)) for i in range(5)]
    assert codes == [200, 200, 200, 429, 429]
    assert len(queued) == 3
