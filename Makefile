VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run demo demo-game test test-optimised test-long lint bench bench-year clean

install: $(STAMP)

# Reinstall only when pyproject.toml changes, so repeated `make test` starts at once.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $(STAMP)

# The service on the embedded SQLite store at 127.0.0.1:8000, with the local treasurer token
# printed (or PONTOON_TREASURER_TOKEN when set): made once, kept in var/treasurer-token
# (mode 0600) and reused by every start until it is revoked.
run: install
	$(BIN)/pontoon serve --migrate --print-treasurer-token

# A fresh var/demo.sqlite3 served at 127.0.0.1:8000 with a fresh treasurer token (printed),
# 200 Shoot Pontoon deals played by bots over the REST API, then the treasurer's pages to
# open; the service runs until Ctrl-C (scripts/demo.sh).
demo: install
	BIN=$(BIN) bash scripts/demo.sh

demo-game: install
	$(BIN)/pontoon demo

# The suite on TEST_WORKERS processes (pytest-xdist): much of it waits on servers, stores and
# the browser, so two processes halve it on two cores. Tests that time a served process
# under load share one group and so run one after another (tests/e2e/test_serve.py,
# SERVED_UNDER_LOAD).
TEST_WORKERS ?= 2
test: install
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup

# The invariants' and the ledger's tests under python -O, which drops every assert: the
# ledger's checks are named errors and stay (tests/unit/test_optimised_python.py runs the
# same within `make test`).
test-optimised: install
	$(BIN)/python -O -m pytest -p no:cacheprovider -W ignore::pytest.PytestConfigWarning \
		tests/unit/test_invariants.py tests/integration/test_shared_state.py \
		tests/integration/test_ledger_guards.py tests/integration/test_atomic_saves.py

# The random tests (property and stateful) ten times longer, from fresh random seeds, with
# no per-test timeout; PONTOON_HYPOTHESIS_FACTOR=N scales them (README, Tests and CI).
test-long: install
	PONTOON_HYPOTHESIS_PROFILE=long $(BIN)/pytest --timeout=0 tests/unit/test_properties.py \
		tests/integration/test_stateful_ledger.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: install
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/history.py
	$(BIN)/python benchmarks/table_depth.py
	$(BIN)/python benchmarks/projections.py
	$(BIN)/python benchmarks/service.py

# A busy club's year on a simulated clock (docs/benchmarks.md, "A year at the club"): built
# once into /tmp/pontoon-year.sqlite3 (about an hour) and reused, copied into PostgreSQL
# when PONTOON_TEST_POSTGRES_URL is set, measured on both.
bench-year: install
	$(BIN)/python benchmarks/year.py --reuse

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
