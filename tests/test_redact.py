"""Redaction: e-mail addresses, phone numbers and key-like strings are replaced by markers
before visitor text is stored; glossary questions, with all their numbers, are left alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.redact import EMAIL, KEY, PHONE, redact, redact_json

EVALS = Path(__file__).resolve().parent.parent / "evals"


@pytest.mark.parametrize(("text", "expected"), [
    ("my email is ana.leak@example.com, what is roce?", f"my email is {EMAIL}, what is roce?"),
    ("ANA.LEAK@EXAMPLE.COM", EMAIL),
    ("write to bo+ib@mail.example.co.uk.", f"write to {EMAIL}."),
    ("(josé@exämple.de)", f"({EMAIL})"),
    ("call +1 415 555 0100 about infiniband", f"call {PHONE} about infiniband"),
    ("or (415) 555-0100", f"or {PHONE}"),
    ("415-555-0100 or 415.555.0100", f"{PHONE} or {PHONE}"),
    ("+44 20 7946 0958", PHONE),
    ("ring 020 7946 0958 today", f"ring {PHONE} today"),
    ("mobile 07946095800", f"mobile {PHONE}"),
    ("+49 (30) 901820", PHONE),
    ("my key is sk-proj-4f9aX2kLmN8pQ7rS1tU3vW5yZ", f"my key is {KEY}"),
    ("token ghp_16C7e42F292c6912E7710c838347Ae178B4a", f"token {KEY}"),
    ("AKIAIOSFODNN7EXAMPLE leaked", f"{KEY} leaked"),
    ("hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345", KEY),
    ("xoxb-123456789012-abcdefABCDEF", KEY),
    ("Authorization: Bearer abc.DEF-123_ghi~jkl+mno/pqr=", f"Authorization: Bearer {KEY}"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
     KEY),
    ("password=hunter2!! and api_key: 12ab", f"password={KEY} and api_key: {KEY}"),
    ("hash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
     f"hash {KEY}"),
])
def test_personal_data_becomes_a_marker(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize("text", [
    "what does it cost to rent 1,024 GPUs at 2.49 per hour for 720 hours?",
    "is 400G enough for 8 GPUs per node and 2^20 byte messages?",
    "compare 100-200-400 gbps links", "the 2026-11-23 release", "10.0.0.1 and 192.168.1.20",
    "a 7b model, bf16 grads = 14 GB", "NDR400 vs HDR200 vs EDR100", "1.5k GPUs for 2 weeks",
    "8 16 32 64 128 GPUs", "800 400 1600", "all-reduce of 1e9 bytes over 3200 Gb/s",
    "what is the MTU of 9000 on RoCEv2?", "sizes 4096 8192 16384 32768 65536",
    "InfiniBand-NDR400-200Gbps-ConnectX7-adapter", "@nvidia said", "a@b",
    "GPUDirect RDMA and NCCL_IB_HCA=mlx5_0,mlx5_1",
])
def test_glossary_questions_are_left_alone(text):
    assert redact(text) == text


def test_every_golden_and_dev_question_and_corpus_faq_is_left_alone(fake_bot):
    questions = []
    for split in ("golden", "dev"):  # never test: it is sealed
        for line in (EVALS / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                questions.append(json.loads(line)["question"])
    questions += [item.q for page in fake_bot.corpus for item in page.faq]
    changed = [q for q in questions if redact(q) != q]
    assert len(questions) > 600 and not changed, changed


def test_redaction_of_a_stored_conversation_keeps_its_shape():
    raw = json.dumps([{"role": "user", "content": "I am ana@example.com"},
                      {"role": "assistant", "content": "RoCE is RDMA over Ethernet."}])
    assert json.loads(redact_json(raw)) == [
        {"role": "user", "content": f"I am {EMAIL}"},
        {"role": "assistant", "content": "RoCE is RDMA over Ethernet."}]
    assert redact_json("not json with bo@example.com") == f"not json with {EMAIL}"


def test_non_text_is_returned_as_text():
    assert redact(None) == ""
    assert redact(42) == "42"


def test_a_run_of_one_letter_is_not_a_key():
    assert redact("a" * 100) == "a" * 100
    assert redact("0" * 40) == "0" * 40
