PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
RUN_STAMP := $(VENV)/.installed-run
# make run HOST=0.0.0.0 PORT=8080 ARGS="--db games.db": the options of `mombasa serve`
HOST ?= 127.0.0.1
PORT ?= 8000
ARGS ?=

.PHONY: run test lint bench bench-check bench-baseline bench-peers venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The runtime set only (what `pip install mombasa-advisor` gives): enough to serve.
$(RUN_STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e .
	touch $(RUN_STAMP)

# The dev extras (tests, linters, the optional peers the tests compare with).
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP) $(RUN_STAMP)

venv: $(STAMP)

run: $(RUN_STAMP)
	$(BIN)/mombasa serve --host $(HOST) --port $(PORT) $(ARGS)

test: $(STAMP)
	$(BIN)/ruff check engine search advisor_api tests benchmarks scripts
	$(BIN)/mypy
	sh scripts/ensure-chromium.sh
	sh scripts/ensure-axe.sh
	sh scripts/ensure-postgres.sh >/dev/null  # the postgres tests' throwaway cluster
	$(BIN)/pytest -q

BENCH := $(BIN)/pytest --benchmark-enable --benchmark-only -p no:cacheprovider -o addopts="" -q
GATE := benchmarks/test_engine_speed.py benchmarks/test_search_speed.py \
	benchmarks/test_solver_speed.py \
	-k "test_clone or throughput or fixed_iterations or 8_points or up_to_4_points"

bench: $(STAMP)
	$(BENCH) benchmarks --benchmark-json=benchmarks/results.json

# The performance gate: tracked benchmarks relative to a calibration loop of the same run;
# a failing one is measured once more (the same command) and fails only if it fails twice.
bench-check: $(STAMP)
	MOMBASA_BENCH_GATE=1 $(BENCH) $(GATE) --benchmark-json=benchmarks/gate.json
	MOMBASA_BENCH_GATE=1 $(BIN)/python -m benchmarks.check benchmarks/gate.json \
		benchmarks/baseline.json --remeasure '$(BENCH)'

bench-baseline: $(STAMP)
	MOMBASA_BENCH_GATE=1 $(BENCH) $(GATE) --benchmark-json=benchmarks/baseline.json

# Side by side with catanatron and OpenSpiel (installs the 'peers' extra).
bench-peers: $(STAMP)
	$(BIN)/pip install --quiet -e '.[peers]'
	$(BIN)/python -m benchmarks.peers --json benchmarks/peers.json

# Issue 52's load test against a real `mombasa serve` (benchmarks/load/README.md), e.g.
# make bench-load LOAD_ARGS="--scenario long --duration 30 --json load.json"
LOAD_ARGS ?=
.PHONY: bench-load
bench-load: $(STAMP)
	$(BIN)/python -m benchmarks.load.fair_share $(LOAD_ARGS)
