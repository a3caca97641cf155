# The two set-up commands are `make run` and `make test`; everything else is for developers.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
TASKS_VENV := .venv-tasks

.PHONY: run test lint bench setup format clean

setup: $(STAMP) $(TASKS_VENV)/bin/gcloud-tasks-emulator

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# gcloud-tasks-emulator pins protobuf<5, so it gets a venv of its own (notes/gcp-emulators.md).
$(TASKS_VENV)/bin/gcloud-tasks-emulator: requirements-tasks-emulator.txt
	$(PYTHON) -m venv $(TASKS_VENV)
	$(TASKS_VENV)/bin/pip install --quiet -r requirements-tasks-emulator.txt
	touch $@

run: $(STAMP)
	$(BIN)/python -m frontdoor.serve

test: setup
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf .data tests/artifacts bench/results/*.json
