# Two commands for users: `make lab` and `make test`. The rest is for contributors.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export PYTHONHASHSEED := 0
export JUPYTER_PLATFORM_DIRS := 1

.PHONY: setup lab test lint export notebooks train bench help

help:
	@echo "make lab        set up .venv and open JupyterLab on notebooks/"
	@echo "make test       set up .venv and run every test (strict nbval + unit tests)"
	@echo "make lint       ruff over helpers, tests and notebooks"
	@echo "make export     write the notebooks' exported cells into helpers/"
	@echo "make notebooks  re-execute every notebook in place in a fresh kernel"
	@echo "make bench      time our model against PyTorch's layers and the KV cache (ARGS=--quick | --suite)"
	@echo "make train      retrain the shipped German-English model in checkpoints/ (CPU, < 10 min)"

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
	$(VENV)/bin/ruff check helpers tests notebooks conftest.py
	$(VENV)/bin/ruff format --check helpers tests notebooks conftest.py

export: setup
	$(PY) -m helpers.devtools.export

# Usage: make notebooks            (all of them)
#        make notebooks NB=notebooks/03_scaled_dot_product_attention.ipynb
notebooks: setup
	$(PY) -m helpers.devtools.export $(if $(NB),--notebook $(NB))
	$(PY) -m helpers.devtools.run_notebooks $(NB)

# The small model notebook 12 analyses; deterministic, about ten minutes on a 2-core CPU.
train: setup
	$(PY) -m helpers.pretrained

# Not part of `make test`: timings depend on the machine and its load. ARGS=--quick for a smoke
# run, ARGS=--suite to add the time and memory of the test suite and of each notebook (minutes).
bench: setup
	$(PY) -m helpers.devtools.benchmark $(ARGS)
