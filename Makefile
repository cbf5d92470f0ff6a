# Two commands for users: `make lab` and `make test`. The rest is for contributors.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export PYTHONHASHSEED := 0
export JUPYTER_PLATFORM_DIRS := 1
# Playwright drives Debian's chromium (make test-browser); it never downloads a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

.PHONY: setup lab test lint export notebooks dictionary train train-real ablations translation-lm modern-block bench mutation student docs test-browser help

help:
	@echo "make lab        set up .venv and open JupyterLab on notebooks/"
	@echo "make test       set up .venv and run every test (strict nbval + unit tests)"
	@echo "make lint       ruff over helpers, tests and notebooks"
	@echo "make dictionary notebook 15's German-English dictionary (GPL) into your cache folder, where apt cannot install it"
	@echo "make export     write the notebooks' exported cells into helpers/ (ARGS=--check: change nothing, fail on a difference)"
	@echo "make notebooks  re-execute every notebook in place in a fresh kernel (English, then the Chinese edition)"
	@echo "make bench      time our model against PyTorch's layers and the KV cache (ARGS=--quick | --suite | --notebooks)"
	@echo "make train      retrain the shipped German-English model in checkpoints/ (CPU, < 10 min)"
	@echo "make train-real the model of notebook 15 on the German-English dictionary (CPU, about an hour), scored into docs/real_german_runs.json"
	@echo "make ablations  train Table 3's rows on the CPU, write docs/table3_ablations.json (ARGS=\"--rows A,E --steps 400\")"
	@echo "make translation-lm  notebook 16's decoder-only vs encoder-decoder translation, three seeds, into docs/translation_as_lm.json (ARGS=\"--seeds 0\")"
	@echo "make modern-block  notebook 17's modern block, each change alone and all together, five seeds, into docs/modern_block.json (ARGS=\"--seeds 0\")"
	@echo "make mutation   mutation testing (mutmut) of the model, decoding and training modules; prints the score (ARGS=\"--module masks\")"
	@echo "make student    write the classroom edition (exercise solutions replaced by stubs) to student/ (ARGS=\"--language zh\": the Chinese one)"
	@echo "make docs       build the offline website of the notebooks in build/site/ (open index.html)"
	@echo "make test-browser  Chromium runs notebooks 00, 04, 12, the Chinese 04 and the five explorers in JupyterLab, and opens the built site in English and Chinese"

# Re-installs only when requirements.txt or pyproject.toml changed since the last install.
$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

setup: $(STAMP)

# --allow-root only where the user is root (containers, CI machines); JupyterLab refuses otherwise.
lab: setup
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

test: setup
	$(PY) -m pytest -n 2 --dist loadscope

lint: setup
	$(VENV)/bin/ruff check helpers tools tests notebooks conftest.py
	$(VENV)/bin/ruff format --check helpers tools tests notebooks conftest.py

export: setup
	$(PY) -m tools.export $(ARGS)

# Usage: make notebooks            (all of them, English then Chinese)
#        make notebooks NB=notebooks/03_scaled_dot_product_attention.ipynb
# The Chinese edition follows: its PO files are updated (a changed paragraph becomes fuzzy, see
# CONTRIBUTING.md), the Chinese notebooks written again where their sources changed, and run.
notebooks: setup
	$(PY) -m tools.export $(if $(NB),--notebook $(NB))
	$(PY) -m tools.run_notebooks $(NB)
	$(PY) -m tools.translation update $(NB)
	$(PY) -m tools.translation generate $(NB)
	$(PY) -m tools.run_notebooks $(if $(NB),$(subst notebooks/,notebooks/zh/,$(NB)),$(wildcard notebooks/zh/[0-9][0-9]_*.ipynb))

# The small model notebook 12 analyses; deterministic, about ten minutes on a 2-core CPU.
train: setup
	$(PY) -m helpers.pretrained

# Notebook 15's German-English dictionary, where `sudo apt-get install trans-de-en` is not possible
# (macOS, other Linux): the project's one download, from its publisher, into the user's cache
# folder (never into the repository: it is GPL). ARGS="--url file:///path/de-en.txt.gz" for a copy.
dictionary: setup
	$(PY) -m helpers.data.get_dictionary $(ARGS)

# Not part of `make test` (about 45 minutes on an idle 2-core CPU; needs the dictionary): notebook 15's
# small model on the real dictionary, then BLEU and chrF of every 5th checkpoint on both tasks
# beside the baselines, into docs/real_german_runs.json (notebook 15 section 9 shows it).
# REAL_STEPS=8000 trains longer; a stopped run continues with REAL_FLAGS=--resume.
REAL_RUN ?= runs/real_small
REAL_STEPS ?= 4000
train-real: setup
	$(PY) -m helpers.train --corpus real --task frequent_phrases --model small --bpe-vocab-size 8000 \
		--tokens-per-batch 2500 --warmup-steps 400 --lr-factor 0.5 --steps $(REAL_STEPS) --eval-every 100 \
		--checkpoint-every 100 --output $(REAL_RUN) $(REAL_FLAGS)
	$(PY) -m helpers.train.real $(REAL_RUN) --every 5 --json docs/real_german_runs.json

# Not part of `make test` (a few minutes per row, about an hour in all): the rows of the paper's
# Table 3 a CPU can afford, each a run of `python -m helpers.train`, into docs/table3_ablations.json.
ablations: setup
	$(PY) -m helpers.train.ablations $(ARGS)

# Not part of `make test` (minutes per seed): notebook 16's closing experiment, a decoder-only model
# against notebook 11's encoder-decoder on translation, into docs/translation_as_lm.json.
translation-lm: setup
	$(PY) -m helpers.train.translation_as_lm $(ARGS)

# Not part of `make test` (minutes): notebook 17's measurement, notebook 16's language model against
# each change of the modern block alone and all together, into docs/modern_block.json.
modern-block: setup
	$(PY) -m helpers.train.modern_block $(ARGS)

# Not part of `make test` (tens of minutes): mutmut changes the model, decoding and training code
# one operator at a time, in a copy under build/mutation/, and reports how many changes the tests catch.
mutation: setup
	$(PY) -m tools.mutation $(ARGS)

# The classroom edition: student/notebooks/, every exercise solution replaced by a stub and a hint.
student: setup
	$(PY) -m tools.student $(ARGS)

# Not part of `make test`: timings depend on the machine and its load. ARGS=--quick for a smoke
# run, ARGS=--suite to add the time and memory of the test suite and of each notebook (minutes).
# --suite and --notebooks (each notebook only) write docs/notebook_run_times.json for `make docs`.
bench: setup
	$(PY) -m tools.benchmark $(ARGS)

# The notebooks as a static website, from their stored outputs (nothing is re-run); works offline.
docs: setup
	$(PY) -m tools.docs $(ARGS)

# Not part of `make test` (a few minutes): Debian's chromium, driven by Playwright, runs notebooks
# 00, 04, 12 and the Chinese 04 through JupyterLab's UI and opens every page of the freshly built
# site, English and Chinese; only loopback requests are let through. Installs chromium when
# missing (sudo when not root); Chinese is drawn with the font the repository carries.
# One test at a time: notebook 12 times its KV cache and must not share the CPU with the browser.
# Screenshots: build/screenshots/.
test-browser: setup docs
	@command -v chromium >/dev/null || { \
		echo "chromium not found: installing Debian's chromium"; \
		$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		$(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
	TRANSFORMER_BROWSER_TESTS=1 $(PY) -m pytest tests/browser
