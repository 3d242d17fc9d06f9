"""Redaction: personal data in what visitors type is replaced by a marker before it is stored.

E-mail addresses become `[email]`, phone numbers `[phone]`, and things that look like keys or
tokens (API keys with a known prefix, bearer tokens, JWTs, `password=...`, long hex or
mixed base64 strings) `[key]`. The patterns are narrow on purpose: the questions this glossary
gets are full of numbers (1,024 GPUs, 400G, 2.49 per hour, 2026-11-23, 10.0.0.1), and a test
checks that no golden, dev or corpus FAQ question is changed.

Example:
    >>> redact("my email is ana@example.com, call +1 415 555 0100")
    'my email is [email], call [phone]'
"""

from __future__ import annotations

import json
import re
from typing import Any

EMAIL = "[email]"
PHONE = "[phone]"
KEY = "[key]"

_EMAIL = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@(?:[^\W_](?:[\w-]*[^\W_])?\.)+[^\W\d_]{2,}")

# Keys with a known shape: OpenAI/Stripe (sk-, sk_live_...), GitHub, Slack, AWS, Google,
# Hugging Face, GitLab, JWTs.
_KNOWN_KEY = re.compile(
    r"\b(?:sk|pk|rk)[-_](?:live_|test_|proj-)?[A-Za-z0-9_-]{16,}"
    r"|\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\bAIza[0-9A-Za-z_-]{30,}"
    r"|\bhf_[A-Za-z0-9]{20,}"
    r"|\bglpat-[A-Za-z0-9_-]{16,}"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
# A secret handed over by name: "Bearer <token>", "password=<x>", "api_key: <x>".
_NAMED_SECRET = re.compile(
    r"(?i)(\bbearer\s+|\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)"
    r"\s*[:=]\s*)(\S+)")
# Long runs that only machines write: 32+ hex digits (letters and digits both), or 32+
# base64 characters (no dashes: 'InfiniBand-NDR400-...' is a name) mixing upper case, lower
# case and digits.
_LONG_HEX = re.compile(r"\b[0-9a-fA-F]{32,}\b")
_LONG_B64 = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/_]{32,}={0,2}(?![\w+/=-])")

# Phone numbers, in the written shapes people use (the digit count is checked after):
# international (+44 20 7946 0958, +49 (30) 901820), an area code in brackets
# ((415) 555-0100), dashes or dots (415-555-0100), a trunk 0 (020 7946 0958, 07946095800).
# Three bare groups (415 555 0100) are left alone: '800 400 1600' is a list of speeds.
_PHONE = re.compile(
    r"(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,5}\)?){2,6}(?!\w)"
    r"|(?<!\w)\(\d{2,5}\)[ .-]?\d{3,4}[ .-]?\d{3,5}(?!\w)"
    r"|(?<![\w.-])\d{3}[.-]\d{3}[.-]\d{4}(?![\w.-])"
    r"|(?<![\w.-])0\d{1,4}[ .-]\d{3,4}[ .-]?\d{3,4}(?![\w.-])"
    r"|(?<![\w.-])0\d{9,10}(?![\w.-])")


def redact(text: Any) -> str:
    """Return text with e-mail addresses, phone numbers and key-like strings replaced by
    [email], [phone] and [key]."""
    if text is None:
        return ""
    out = _EMAIL.sub(EMAIL, str(text))
    out = _KNOWN_KEY.sub(KEY, out)
    out = _NAMED_SECRET.sub(lambda m: m.group(1) + (m.group(2) if _marker(m.group(2)) else KEY),
                            out)
    out = _LONG_HEX.sub(lambda m: KEY if _hexy(m.group(0)) else m.group(0), out)
    out = _LONG_B64.sub(lambda m: KEY if _mixed(m.group(0)) else m.group(0), out)
    return _PHONE.sub(lambda m: PHONE if 8 <= _digits(m.group(0)) <= 15 else m.group(0), out)


def redact_json(text: str) -> str:
    """Redact the contents of a stored conversation (a JSON list of {role, content}); text
    that is not such JSON is redacted as text."""
    try:
        messages = json.loads(text)
    except ValueError:
        return redact(text)
    if not isinstance(messages, list):
        return redact(text)
    out = [{**m, "content": redact(m.get("content"))} if isinstance(m, dict) else m
           for m in messages]
    return json.dumps(out, ensure_ascii=False)


def _digits(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


def _hexy(text: str) -> bool:
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def _mixed(text: str) -> bool:
    return (any(c.isupper() for c in text) and any(c.islower() for c in text)
            and any(c.isdigit() for c in text))


def _marker(text: str) -> bool:
    return text in (EMAIL, PHONE, KEY)
