# `make run` and `make test` are the two commands a fresh machine needs (see README).
# Both install from requirements.lock (every package pinned with its hashes), so a fresh machine
# gets exactly what CI tested; `make lock` refreshes the lock, `make test-latest` tries the newest
# versions pyproject.toml allows.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
LOCK := requirements.lock
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml $(LOCK) | cksum | cut -d' ' -f1)
# uv resolves the lock (`make lock` only; installing needs nothing but pip)
UV_VERSION := 0.13.8
# pytest workers: every usable core (pytest-xdist); WORKERS=0 runs in one process
WORKERS ?= auto

.PHONY: install run test test-fast test-latest lock bench bench-figures clean

# The lock is installed with --no-deps (it is complete; pip checks every hash), then the package
# itself, built with the locked setuptools (--no-build-isolation: nothing unpinned is fetched).
$(STAMP): pyproject.toml $(LOCK)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r $(LOCK)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(BIN)/python -m pip check
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

# Replays the shipped cassettes: no network, no API key. Then replays the podcast tuning
# (hand-written answers, three poisoned on purpose) into reports/tune/, and writes the run viewer
# over every run in reports/ (open reports/view/index.html).
run: install
	$(BIN)/harness run suites/*.yaml --record-mode none --gate
	$(BIN)/harness tune --suite suites/podcast.yaml --out reports/tune/podcast-auto.yaml \
		--selection top --limit 6 --record-mode none
	$(BIN)/harness view reports --out reports/view

# Every test, on every core (pytest-xdist). No test needs a process or a port of its own: local
# servers bind port 0 and every test writes under its own tmp_path. One that could not share
# would say so with @pytest.mark.xdist_group(name=...), which --dist loadgroup keeps together.
# No benchmark runs here: those are `make bench` (and the timed figures `make bench-figures`).
test: install
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup

# The tests not marked slow (end-to-end runs, browser, growth counted under valgrind): the loop
# to run while working. `make test` runs them all.
test-fast: install
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup -m "not slow"

# Re-resolve requirements.lock from pyproject.toml's ranges (and build-requirements.in) with uv,
# for every platform, with hashes. Commit the result after `make test` passes on it.
lock:
	test -x .venv-lock/bin/uv || { $(PYTHON) -m venv .venv-lock && .venv-lock/bin/python -m pip install --quiet uv==$(UV_VERSION); }
	.venv-lock/bin/uv pip compile pyproject.toml build-requirements.in --extra test --extra ray --universal \
		--python-version 3.11 --generate-hashes --upgrade --quiet -o $(LOCK)

# The newest versions pyproject.toml's ranges allow, in their own venv, then every test. On a
# failure it names the upgraded package(s) whose locked version makes the failing tests pass.
test-latest:
	$(PYTHON) scripts/test_latest.py --venv .venv-latest --lock $(LOCK) --workers $(WORKERS)

bench: install
	$(BIN)/python bench/replay.py
	$(BIN)/python bench/parse_corpus.py
	$(BIN)/python bench/reference_free_corpus.py
	$(BIN)/python bench/tune_sampling.py
	$(BIN)/python bench/tune.py
	$(BIN)/python bench/limiter.py
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/view_site.py --quick
	$(BIN)/python -m pytest -q bench/test_figures_quick.py

# Every figure of issue 18 in one table (installs promptfoo from npm into ~/.cache on first use;
# QUICK=1 leaves out the 20,000-case memory figure).
bench-figures: install
	$(BIN)/python bench/figures.py $(if $(QUICK),--quick) $(if $(BEFORE),--before $(BEFORE))

clean:
	rm -rf $(VENV) .venv-latest .venv-lock reports/*/ build *.egg-info
