from pathlib import Path

import pytest

from assistant.config import Settings, SettingsError, settings_table

REPO = Path(__file__).resolve().parent.parent


def test_defaults_need_no_environment():
    s = Settings.from_env({})
    assert s.retriever == "hybrid"
    assert s.chroma_host == ""
    assert s.max_question_chars == 1000
    assert s.llm == ""


def test_environment_overrides_and_types():
    s = Settings.from_env({"ASSISTANT_TOP_K": "8", "CHROMA_HOST": "127.0.0.1",
                           "CHROMA_PORT": "9001", "ASSISTANT_MIN_RELEVANCE": "0.5",
                           "ASSISTANT_DATA_DIR": "/tmp/x"})
    assert (s.top_k, s.chroma_host, s.chroma_port, s.min_relevance) == (8, "127.0.0.1", 9001, 0.5)
    assert s.data_dir == Path("/tmp/x")


@pytest.mark.parametrize("env", [{"ASSISTANT_TOP_K": "many"}, {"ASSISTANT_RETRIEVER": "magic"},
                                 {"ASSISTANT_TOP_K": "0"}])
def test_bad_values_are_named(env):
    with pytest.raises(SettingsError) as err:
        Settings.from_env(env)
    assert list(env)[0].split("_")[-1].lower() in str(err.value).lower()


def test_settings_are_frozen():
    s = Settings.from_env({})
    with pytest.raises(AttributeError):
        s.top_k = 3  # type: ignore[misc]


def test_readme_settings_table_is_current():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert settings_table() in readme, "regenerate with: python -c 'from assistant.config " \
                                       "import settings_table; print(settings_table())'"
