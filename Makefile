# The few commands a newcomer needs. `make run` and `make test` work on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The LLM integration test's server (llama-cpp-python compiles once, ~9 min; pip caches it).
LLM_STAMP := $(VENV)/.installed-llm-test

# Nothing phones home: no hub look-ups, no Gradio or Chroma telemetry.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export HF_HUB_DISABLE_TELEMETRY := 1
export GRADIO_ANALYTICS_ENABLED := False
export ANONYMIZED_TELEMETRY := False
export TOKENIZERS_PARALLELISM := false

.PHONY: install run test test-fast lint index check-corpus eval bench loadtest browser clean site

install: $(STAMP)

# torch first and pinned: torch==2.13.0 resolves to the local CPU wheel here, while an
# unpinned torch pulled by sentence-transformers would fetch a multi-GB CUDA build.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

$(LLM_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[test,llm-test]'
	touch $(LLM_STAMP)

# Debian's Chromium for the browser tests (Playwright cannot download its own browser here).
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -q && apt-get install -y -q chromium; \
	  else sudo apt-get update -q && sudo apt-get install -y -q chromium; fi; \
	fi

index: $(STAMP)
	$(PY) -m assistant ingest

check-corpus: $(STAMP)
	$(PY) -m assistant corpus check

run: index
	$(PY) app.py

# The glossary site as static files: make site ASSISTANT_URL=https://assistant.example.com
SITE_DIR ?= public
site: $(STAMP)
	$(PY) -m assistant site build $(SITE_DIR) --assistant-url "$(ASSISTANT_URL)"

# Everything: lint, then every tier (unit, model, integration, browser, eval).
test: $(STAMP) $(LLM_STAMP) browser lint
	$(PY) -m pytest

# The unit tier (under a minute): no embedding model, no Chroma index, no servers, no browser.
test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not model and not integration"

# ruff with the rules in pyproject.toml, the complexity check at 12 included.
lint: $(STAMP)
	$(PY) -m ruff check .

eval: $(STAMP)
	$(PY) -m assistant eval-report

bench: index
	$(PY) -m assistant bench

loadtest: index
	$(PY) -m assistant loadtest

clean:
	rm -rf .data
