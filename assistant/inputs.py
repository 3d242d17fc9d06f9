"""Visitor input made safe to work with: cleaned text, capped length, well-formed history."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class Message:
    """One turn of the conversation."""

    role: str  # "user" or "assistant"
    content: str


def clean_text(text: Any) -> str:
    """Return text without control characters, lone surrogates or runs of white space."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    # Lone surrogates cannot be encoded; drop them rather than fail later in a tokenizer.
    text = text.encode("utf-8", "ignore").decode("utf-8")
    text = unicodedata.normalize("NFC", text)
    text = _CONTROL.sub(" ", text.replace("\t", " ").replace("\n", " ").replace("\r", " "))
    return " ".join(text.split())


def _content_text(content: Any) -> str:
    # Gradio 6 message content may be a string, a list of parts, or a dict with "text".
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("text") or content.get("value") or "")
    if isinstance(content, list):
        return " ".join(_content_text(part) for part in content)
    return ""


def clean_history(history: Any, max_turns: int, max_chars: int) -> list[Message]:
    """Keep the newest well-formed turns within the caps; silently drop anything malformed."""
    if not isinstance(history, list):
        return []
    messages: list[Message] = []
    for item in history:
        if isinstance(item, Message):
            role, content = item.role, item.content
        elif isinstance(item, dict):
            role, content = item.get("role"), _content_text(item.get("content"))
        else:
            continue
        if role not in ("user", "assistant"):
            continue
        text = clean_text(content)
        if text:
            messages.append(Message(role, text))
    kept: list[Message] = []
    budget = max_chars
    for message in reversed(messages[-max_turns:]):
        if budget <= 0:
            break
        text = message.content[-budget:] if len(message.content) > budget else message.content
        kept.append(Message(message.role, text))
        budget -= len(text)
    kept.reverse()
    return kept
