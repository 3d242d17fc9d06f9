"""Staff FAQ entries: validation, the store, publishing into the index, the console routes,
and the gap rules. The in-memory index and hashed embeddings stand in for the model."""

from __future__ import annotations

import dataclasses

import pytest
import yaml
from conftest import CORPUS, TEST_DATA

from assistant import staff
from assistant.answer import Answer, Citation
from assistant.config import Settings
from assistant.corpus import FAQ
from assistant.retrieve import Retriever
from assistant.staff import StaffEntryError
from assistant.store import Store
from assistant.testing import fake_assistant

QUESTION = "How much does an InfiniBand port cost?"
ANSWER = ("An InfiniBand port usually costs more than an Ethernet port of the same speed. "
          "Most of the extra cost buys lower latency and lossless transport.")


@pytest.fixture
def fresh_bot():
    """An Assistant of its own: publishing changes its index."""
    return fake_assistant(Settings.from_env({}, corpus_dir=CORPUS, data_dir=TEST_DATA))


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "log.sqlite3")


# -- validation and the store ------------------------------------------------------------------

@pytest.mark.parametrize(("question", "answer", "slug", "reason"), [
    ("", ANSWER, "infiniband", "question is empty"),
    (QUESTION, "   ", "infiniband", "answer is empty"),
    ("x" * (staff.MAX_QUESTION + 1), ANSWER, "infiniband", "question is longer"),
    (QUESTION, "Word. " * 400, "infiniband", "answer is longer"),
    (QUESTION, ANSWER, "no-such-page", "no page"),
    (QUESTION, "It costs more. This is why it is popular.", "infiniband", "stand alone"),
    (QUESTION, "One. Two. Three. Four.", "infiniband", "sentences"),
])
def test_bad_entries_are_refused_with_the_reason(fake_bot, store, question, answer, slug,
                                                 reason):
    with pytest.raises(StaffEntryError, match=reason):
        store.add_staff_entry(question, answer, slug, "ana", fake_bot.corpus)
    assert store.staff_entries() == []


def test_entries_round_trip_through_the_store(fake_bot, store):
    entry = store.add_staff_entry(f"  {QUESTION} ", ANSWER, "infiniband", "ana",
                                  fake_bot.corpus)
    assert (entry.question, entry.answer, entry.slug, entry.author, entry.status) == (
        QUESTION, ANSWER, "infiniband", "ana", "draft")
    assert entry.created and store.staff_entry(entry.id) == entry
    assert store.set_staff_status(entry.id, "published").status == "published"
    assert [e.id for e in store.staff_entries(status="published")] == [entry.id]
    store.delete_staff_entry(entry.id)
    assert store.staff_entry(entry.id) is None


@pytest.mark.parametrize(("question", "answer"), [
    ("Is <script>alert(1)</script> fast?", ANSWER),
    (QUESTION, "InfiniBand <img src=x onerror=alert(1)> costs more than Ethernet."),
    (QUESTION, "InfiniBand costs more than Ethernet.</p>"),
    (QUESTION, "InfiniBand costs more <!-- hidden --> than Ethernet."),
])
def test_markup_in_a_staff_answer_is_refused(fake_bot, store, question, answer):
    with pytest.raises(StaffEntryError, match="plain text"):
        store.add_staff_entry(question, answer, "infiniband", "ana", fake_bot.corpus)
    assert store.staff_entries() == []


def test_text_about_comparisons_is_plain_text(fake_bot, store):
    entry = store.add_staff_entry("Is InfiniBand latency < 1 us?", "InfiniBand latency is "
                                  "often < 1 us & RoCE's is > 1 us.", "infiniband", "ana",
                                  fake_bot.corpus)
    assert entry.answer == "InfiniBand latency is often < 1 us & RoCE's is > 1 us."


def test_a_published_entry_with_markup_from_an_older_version_is_withdrawn(fresh_bot, store):
    entry = store.add_staff_entry(QUESTION, ANSWER, "infiniband", "ana", fresh_bot.corpus)
    staff.publish(store, fresh_bot.index, fresh_bot.retriever, fresh_bot.corpus, entry.id)
    with store._write() as conn:  # what an older version let staff store
        conn.execute("UPDATE staff_faq SET answer = ? WHERE id = ?",
                     ("InfiniBand <img src=x onerror=alert(1)> costs more.", entry.id))
    staff.sync_after_ingest(store, fresh_bot.index, fresh_bot.corpus)
    assert store.staff_entry(entry.id).status == "draft"
    assert entry.chunk_id not in {u.id for u in fresh_bot.index.units}


def test_a_clicked_gap_or_dislike_fills_the_question():
    from assistant.views import VIEWS
    from assistant.web.console import question_of

    gaps = [c for c, _ in VIEWS["gaps"].columns]
    feedback = [c for c, _ in VIEWS["feedback"].columns]
    assert question_of([3, "Is IB &lt;cheap&gt;?", "", "refusal", 0.1, "t", ""], gaps) == (
        "Is IB <cheap>?")
    row = ["t", -1, "meh", "is nvlink fast?", "...", "nvlink", 4]
    assert question_of(row, feedback) == "is nvlink fast?"
    assert question_of([], gaps) == ""


# -- publishing --------------------------------------------------------------------------------

def test_published_entry_leads_the_answer_and_unpublished_is_gone(fresh_bot, store):
    before = fresh_bot.ask(QUESTION)
    assert not before.text.startswith(ANSWER.split(".")[0])
    entry = store.add_staff_entry(QUESTION, ANSWER, "infiniband", "ana", fresh_bot.corpus)
    built = fresh_bot.index.manifest().built_at
    staff.publish(store, fresh_bot.index, fresh_bot.retriever, fresh_bot.corpus, entry.id)
    assert fresh_bot.index.manifest().built_at != built  # other processes follow
    # A fresh retriever over the same index, as another process would build it.
    fresh_bot.retriever = Retriever(fresh_bot.index, fresh_bot.corpus)
    answer = fresh_bot.ask(QUESTION)
    assert answer.text.startswith("An InfiniBand port usually costs more")
    first = answer.citations[0]
    assert (first.slug, first.section) == ("infiniband", "FAQ")
    assert answer.note == staff.SUPPORT_NOTE and staff.SUPPORT_NOTE in answer.text
    assert answer.faq == f"infiniband#staff-{entry.id}"

    staff.unpublish(store, fresh_bot.index, fresh_bot.retriever, entry.id)
    after = fresh_bot.ask(QUESTION)
    assert "An InfiniBand port usually costs more" not in after.text
    assert staff.SUPPORT_NOTE not in after.text
    assert store.staff_entry(entry.id).status == "draft"
    assert not [u for u in fresh_bot.index.units if staff.is_staff(u.id)]


def test_units_have_the_shapes_of_a_corpus_faq_item(fake_bot):
    from assistant.corpus import chunk_page

    page = fake_bot.corpus.pages["infiniband"]
    entry = staff.StaffEntry(7, QUESTION, ANSWER, "infiniband", "ana", "", "published")
    units = staff.staff_units(entry, page)
    corpus_faq = [u for u in chunk_page(page) if u.id.startswith("infiniband::faq::0")]
    assert [u.unit for u in units] == [u.unit for u in corpus_faq][:len(units)]
    assert {u.section for u in units} == {"FAQ"}
    assert units[0].id == "infiniband::staff::7" and units[1].id == "infiniband::staff::7::q"
    assert all(u.chunk_id == "infiniband::staff::7" for u in units[1:])


def test_reingest_keeps_entries_and_retires_merged_ones(fresh_bot, store):
    kept = store.add_staff_entry(QUESTION, ANSWER, "infiniband", "ana", fresh_bot.corpus)
    merged = store.add_staff_entry("Does NVLink need a switch?", "NVLink can connect GPUs "
                                   "directly or through NVSwitch chips.", "nvlink", "ana",
                                   fresh_bot.corpus)
    for e in (kept, merged):
        staff.publish(store, fresh_bot.index, fresh_bot.retriever, fresh_bot.corpus, e.id)
    # The editors merged one entry into the page's front matter (the exported patch).
    pages = dict(fresh_bot.corpus.pages)
    nvlink = pages["nvlink"]
    pages["nvlink"] = dataclasses.replace(nvlink, faq=nvlink.faq + (
        FAQ(q="Does NVLink need a switch?", a="NVLink can connect GPUs directly."),))
    corpus = dataclasses.replace(fresh_bot.corpus, pages=pages)
    retired = staff.sync_after_ingest(store, fresh_bot.index, corpus)
    assert retired == [merged.id]
    assert store.staff_entry(merged.id).status == "retired"
    assert store.staff_entry(kept.id).status == "published"
    ids = {u.id for u in fresh_bot.index.units}
    assert kept.chunk_id in ids and merged.chunk_id not in ids


def test_yaml_patch_lists_published_entries_per_page(fake_bot, store):
    entry = store.add_staff_entry(QUESTION, ANSWER, "infiniband", "ana", fake_bot.corpus)
    store.add_staff_entry("Is NVLink fast?", "NVLink is faster than PCIe.", "nvlink", "ana",
                          fake_bot.corpus)  # a draft: not exported
    store.set_staff_status(entry.id, "published")
    text = staff.yaml_patch(store.staff_entries())
    assert text.startswith("# corpus page infiniband")
    assert yaml.safe_load(text) == {"faq": [{"q": QUESTION, "a": ANSWER}]}


# -- the console routes ------------------------------------------------------------------------

def test_staff_routes_need_a_console_login(fresh_bot, store):
    from fastapi.testclient import TestClient

    from assistant.web.app import create_app

    settings = fresh_bot.settings.replace(admin_password="s3cret-pass")
    client = TestClient(create_app(fresh_bot, store, settings=settings),
                        base_url="https://testserver")
    body = {"question": QUESTION, "answer": ANSWER, "slug": "infiniband", "publish": True}
    assert client.post("/admin/staff", json=body).status_code == 401
    assert client.post("/admin/staff/1/publish").status_code == 401
    assert client.get("/admin/staff/patch.yaml").status_code == 401
    assert store.staff_entries() == []

    login = client.post("/admin/login", data={"username": "admin", "password": "s3cret-pass"},
                        follow_redirects=False)
    assert login.status_code in (200, 303)
    # A change needs the console's origin and the session's CSRF token (see test_auth.py).
    console = {"origin": "https://testserver",
               "x-csrf-token": client.get("/admin/csrf").json()["token"]}
    bad = client.post("/admin/staff", json={**body, "slug": "nope"}, headers=console)
    assert bad.status_code == 400 and "no page" in bad.json()["error"]
    made = client.post("/admin/staff", json=body, headers=console)
    assert made.status_code == 200 and made.json()["status"] == "published"
    assert fresh_bot.ask(QUESTION).text.startswith("An InfiniBand port usually costs more")
    assert "infiniband" in client.get("/admin/staff/patch.yaml").text
    gone = client.post(f"/admin/staff/{made.json()['id']}/unpublish",
                       headers={**console, "content-type": "application/json"})
    assert gone.status_code == 200 and gone.json()["status"] == "draft"
    assert not fresh_bot.ask(QUESTION).text.startswith("An InfiniBand port usually costs")


def test_the_api_never_returns_markup_from_a_staff_answer(fresh_bot, store):
    from fastapi.testclient import TestClient

    from assistant.web.app import create_app

    settings = fresh_bot.settings.replace(admin_password="s3cret-pass")
    client = TestClient(create_app(fresh_bot, store, settings=settings),
                        base_url="https://testserver")
    client.post("/admin/login", data={"username": "admin", "password": "s3cret-pass"})
    csrf = {"origin": "https://testserver", "x-csrf-token": client.get("/admin/csrf").json()[
        "token"]} if client.get("/admin/csrf").status_code == 200 else {}
    evil = "NVLink is sold <img src=x onerror=alert(1)> at no cost."
    made = client.post("/admin/staff", json={"question": "Is NVLink free?", "answer": evil,
                                             "slug": "nvlink", "publish": True}, headers=csrf)
    assert made.status_code == 400 and "plain text" in made.json()["error"]
    answer = client.post("/api/ask", json={"question": "Is NVLink free?"}).json()["answer"]
    assert "<img" not in answer and "onerror" not in answer


# -- gaps --------------------------------------------------------------------------------------

def _answer(text="NVLink links GPUs. [1]", subject="nvlink", **kw):
    citations = [Citation(1, "nvlink", "NVLink", "/glossary/nvlink", "Summary")]
    return Answer(text=text, citations=citations, subject=subject, confidence=0.9, **kw)


def test_gaps_group_dislikes_and_off_subject_answers_and_show_staff_answers(fake_bot, store):
    fine = store.log("what is nvlink?", _answer())
    disliked = store.log("is nvlink fast?", _answer())
    store.feedback(disliked, -1)
    store.log("is nvlink expensive?", _answer("GPUs talk over links. [1]"))
    store.log("is nvlink expensive??", _answer("GPUs talk over links. [1]"))
    assert fine
    gaps = {g.question: g for g in store.gaps()}
    assert "what is nvlink?" not in gaps
    assert gaps["is nvlink fast?"].kinds == "thumbs-down"
    expensive = gaps["is nvlink expensive??"]
    assert expensive.count == 2 and expensive.kinds == "off-subject"
    assert expensive.last_asked and expensive.examples == ["is nvlink expensive?"]
    assert expensive.staff == ""
    store.add_staff_entry("Is NVLink expensive?", "NVLink costs nothing extra on its own.",
                          "nvlink", "ana", fake_bot.corpus)
    assert {g.question: g for g in store.gaps()}["is nvlink expensive??"].staff == "draft"


# -- the Chroma index --------------------------------------------------------------------------

def test_chroma_index_adds_keeps_across_ingest_and_removes_staff_units(small_settings,
                                                                       small_corpus):
    from assistant.corpus import load_corpus
    from assistant.index import Index
    from assistant.testing import HashEmbeddings

    index = Index(small_settings)
    index.__dict__["embeddings"] = HashEmbeddings()  # Chroma for real, no model
    corpus = load_corpus(small_corpus)
    index.ingest(corpus, progress=False)
    built = index.manifest().built_at
    entry = staff.StaffEntry(3, QUESTION, ANSWER, "infiniband", "ana", "", "published")
    index.add_units(staff.staff_units(entry, corpus.pages["infiniband"]))
    assert index.manifest().built_at != built and index.manifest().pages
    ids = {u.id for u in index.snapshot()[0]}
    assert {entry.chunk_id, f"{entry.chunk_id}::q", f"{entry.chunk_id}::s1"} <= ids

    page = small_corpus / "glossary" / "infiniband.md"
    page.write_text(page.read_text() + "\nInfiniBand also has a subnet manager.\n")
    report = index.ingest(load_corpus(small_corpus), progress=False)
    assert report.changed == ["infiniband"]
    assert {u.id for u in index.snapshot()[0] if staff.is_staff(u.id)} == {
        u.id for u in staff.staff_units(entry, corpus.pages["infiniband"])}

    index.remove_chunk(entry.chunk_id)
    assert not [u for u in index.snapshot()[0] if staff.is_staff(u.id)]
    assert index.manifest().pages == Index(small_settings).manifest().pages


# -- the exported patch, merged into a copy of the corpus --------------------------------------

def test_patch_merged_into_a_corpus_copy_passes_the_check_and_retires_the_entry(
        fresh_bot, store, tmp_path):
    import re
    import shutil

    import frontmatter

    from assistant.corpus import check_corpus, load_corpus

    entry = store.add_staff_entry(QUESTION, ANSWER, "infiniband", "ana", fresh_bot.corpus)
    # (a page with room for one more FAQ entry: a page holds 2 to 8)
    other = store.add_staff_entry("Does NVLink replace PCIe?", "NVLink links GPUs to each "
                                  "other, while PCIe still connects them to the host.",
                                  "pcie", "ana", fresh_bot.corpus)
    for e in (entry, other):
        staff.publish(store, fresh_bot.index, fresh_bot.retriever, fresh_bot.corpus, e.id)
    patch = staff.yaml_patch(store.staff_entries())

    # What an editor does with the patch: add each page's items to its front matter's faq.
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    parts = re.split(r"^# corpus page ([\w-]+):.*$", patch, flags=re.M)
    assert parts[1::2] == ["infiniband", "pcie"]
    for slug, block in zip(parts[1::2], parts[2::2], strict=True):
        items = yaml.safe_load(block)["faq"]
        path = next(copy.glob(f"*/{slug}.md"))
        page = frontmatter.loads(path.read_text(encoding="utf-8"))
        page.metadata["faq"] = list(page.metadata["faq"]) + items
        path.write_text(frontmatter.dumps(page, sort_keys=False) + "\n", encoding="utf-8")
    assert check_corpus(copy) == []
    merged = load_corpus(copy)
    assert merged.pages["infiniband"].faq[-1] == FAQ(q=QUESTION, a=ANSWER)

    assert merged.pages["pcie"].faq[-1].q == "Does NVLink replace PCIe?"

    # Re-ingest of the copy: the corpus FAQ now asks them, so the staff entries retire.
    assert sorted(staff.sync_after_ingest(store, fresh_bot.index, merged)) == [entry.id,
                                                                               other.id]
    assert {store.staff_entry(e.id).status for e in (entry, other)} == {"retired"}
    assert not [u for u in fresh_bot.index.units if staff.is_staff(u.id)]
    assert staff.yaml_patch(store.staff_entries()) == ""  # nothing left to merge
