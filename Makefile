# The map of what a contributor can do. Needs only python3 (>= 3.11) on the PATH.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test fuzz lint format bench docs ecosystem clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when the dependencies change.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	touch $@

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@ $(STAMP)

## run: audit the bundled demo log as a table (findings are expected there, so exit 0 regardless),
## and write the same audit as one HTML page, report.html
run: $(STAMP)
	$(BIN)/audit fixtures/demo/ -f table --exit-zero
	@$(BIN)/audit fixtures/demo/ --exit-zero -f html -o report.html

## test: the whole suite over every core, each module in one worker (pytest-xdist; TEST_WORKERS=0
## runs it in one process)
TEST_WORKERS ?= auto
test: $(DEV_STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

## fuzz: every property-based test (pytest's `hypothesis` mark) with AUDITOR_FUZZ (default 30)
## times the examples it is written with, where `make test` runs a fifth of them: half an hour
fuzz: $(DEV_STAMP)
	AUDITOR_FUZZ=$${AUDITOR_FUZZ:-30} $(BIN)/python -m pytest -m hypothesis -q

## lint: ruff check + ruff format --check + mypy (auditor/ and scripts/, as [tool.mypy] in
## pyproject.toml says)
lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## format: apply ruff's fixes and formatting
format: $(DEV_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## bench: audit against orjson's parse of the same bytes, per format family of ../shared/realdata*
## (replicated to BENCH_MB=20 MB each) and on the synthetic log; start-up; a few minutes
bench: $(STAMP)
	$(BIN)/python bench/bench.py

## docs: regenerate docs/rules/CODE.md from each rule's docstring, and the rule table, the
## demo's output and the per-rule precision table (from the ecosystem ledger) in README.md
## and docs/rules.md; a test fails when one is stale
docs: $(STAMP)
	$(BIN)/python scripts/docs.py --write

## ecosystem: audit every ../shared/realdata* corpus and compare the findings with the judged
## ledger tests/ecosystem/judged.jsonl (ARGS=--strict, --write-stubs, --drop-gone, --refresh;
## see tests/ecosystem/README.md). The same install as `make test`, whose extras hold every
## optional reader the corpora need (zstd, for Inspect's Zstandard .eval members)
ecosystem: $(DEV_STAMP)
	$(BIN)/python tests/ecosystem/check.py $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
