# `make run` and `make test` are the two commands a fresh machine needs (see README).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: install run test bench bench-figures clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

# Replays the shipped cassettes: no network, no API key. Then replays the podcast tuning
# (hand-written answers, three poisoned on purpose) into reports/tune/.
run: install
	$(BIN)/harness run suites/*.yaml --record-mode none --gate
	$(BIN)/harness tune --suite suites/podcast.yaml --out reports/tune/podcast-auto.yaml \
		--selection top --limit 6 --record-mode none

# Unit tests only: no benchmark runs here (those are `make bench`, timed figures `make bench-figures`).
test: install
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python bench/replay.py
	$(BIN)/python bench/parse_corpus.py
	$(BIN)/python bench/reference_free_corpus.py
	$(BIN)/python bench/tune_sampling.py
	$(BIN)/python bench/tune.py
	$(BIN)/python bench/limiter.py
	$(BIN)/python bench/startup.py
	$(BIN)/python -m pytest -q bench/test_figures_quick.py

# Every figure of issue 18 in one table (installs promptfoo from npm into ~/.cache on first use;
# QUICK=1 leaves out the 20,000-case memory figure).
bench-figures: install
	$(BIN)/python bench/figures.py $(if $(QUICK),--quick) $(if $(BEFORE),--before $(BEFORE))

clean:
	rm -rf $(VENV) reports/*/ build *.egg-info
