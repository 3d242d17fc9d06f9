"""Chat-model factory: "provider:model" settings to a LangChain chat model."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .config import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

EXTRAS = {"openai": "openai", "ollama": "ollama"}


class ModelConfigError(RuntimeError):
    """The LLM setting cannot be turned into a chat model; the message says how to fix it."""


def build_chat_model(settings: Settings) -> BaseChatModel | None:
    """Build the chat model ASSISTANT_LLM names, or None for the extractive mode."""
    if not settings.llm:
        return None
    provider, sep, name = settings.llm.partition(":")
    if not sep or not provider or not name:
        raise ModelConfigError(f"ASSISTANT_LLM={settings.llm!r} must look like provider:model, "
                               f"for example openai:gpt-4o-mini or ollama:llama3.1")
    from langchain.chat_models import init_chat_model

    # We retry ourselves (twice, with backoff) so that every provider behaves the same.
    kwargs: dict = {"temperature": 0}
    if provider == "ollama":
        if settings.llm_base_url:
            kwargs["base_url"] = settings.llm_base_url
        kwargs["client_kwargs"] = {"timeout": settings.llm_timeout_s}
    else:
        kwargs.update(timeout=settings.llm_timeout_s, max_retries=0)
        if settings.llm_base_url:
            kwargs["base_url"] = settings.llm_base_url
            if provider == "openai" and not os.environ.get("OPENAI_API_KEY"):
                # Self-hosted OpenAI-compatible servers (vLLM, llama.cpp) accept any key.
                kwargs["api_key"] = "not-needed"
    try:
        return init_chat_model(settings.llm, **kwargs)
    except ImportError as exc:
        extra = EXTRAS.get(provider, provider)
        raise ModelConfigError(f"ASSISTANT_LLM={settings.llm!r} needs the {provider} "
                               f"integration: pip install '.[{extra}]'") from exc
    except ValueError as exc:
        raise ModelConfigError(f"ASSISTANT_LLM={settings.llm!r}: {exc}") from exc
