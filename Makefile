# The two set-up commands are `make run` and `make test`; everything else is for developers.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
TASKS_VENV := .venv-tasks
CHECKOV_VENV := .venv-checkov

.PHONY: run run-emulated test lint bench bench-tools fuzz setup format clean terraform-check

setup: $(STAMP) $(TASKS_VENV)/bin/gcloud-tasks-emulator $(CHECKOV_VENV)/bin/checkov tools/inspector/node_modules/.installed

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

# checkov pins its own hcl2 parser, so it too gets a venv of its own.
$(CHECKOV_VENV)/bin/checkov: requirements-checkov.txt
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install --quiet -r requirements-checkov.txt
	touch $@

# Node tools, each from its lockfile: the MCP Inspector's CLI for the tests (kept out of tests/,
# so nothing that reads tests/ walks third-party JavaScript), Lighthouse for bench.
tools/inspector/node_modules/.installed: tools/inspector/package.json tools/inspector/package-lock.json
	npm ci --prefix tools/inspector --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

bench/node_modules/.installed: bench/package.json bench/package-lock.json
	npm ci --prefix bench --no-audit --no-fund --loglevel=error
	touch $@

# terraform init cannot reach the registry offline: fmt and checkov are the checks we can run.
terraform-check: $(CHECKOV_VENV)/bin/checkov
	TF_CLI_CONFIG_FILE=/dev/null terraform fmt -check -recursive -diff terraform
	$(CHECKOV_VENV)/bin/checkov -d terraform --framework terraform --skip-download --compact --quiet

# MALLOC_ARENA_MAX: glibc keeps one malloc arena per thread otherwise (README "Configuration").
run: $(STAMP)
	MALLOC_ARENA_MAX=$${MALLOC_ARENA_MAX:-2} $(BIN)/python -m frontdoor.serve

# The API and the workers on the Google Cloud emulators (Firestore, Pub/Sub, storage, tasks).
run-emulated: $(STAMP) $(TASKS_VENV)/bin/gcloud-tasks-emulator
	$(BIN)/python -m devtools.emulated

# Two xdist workers (each starts the emulators it needs): 5.0 min against 6.0 min in one process.
test: setup
	$(BIN)/pytest -n 2

# The OpenAPI conformance run with 20x the examples `make test` uses (about 20 minutes here).
fuzz: $(STAMP)
	FUZZ_EXAMPLES=5000 $(BIN)/pytest tests/api/test_openapi_conformance.py -p no:randomly -n 0

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Debian's wrk and chromium (as .ci/run installs them), then every benchmark.
bench-tools:
	@need=""; command -v wrk >/dev/null || need="$$need wrk"; \
	command -v chromium >/dev/null || need="$$need chromium fonts-liberation"; \
	if [ -n "$$need" ]; then \
	  echo "installing$$need"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need >/dev/null; \
	fi

bench: $(STAMP) bench/node_modules/.installed bench-tools
	$(BIN)/python -m bench

clean:
	rm -rf .data tests/artifacts bench/results/*.json
