# The two commands of the README: `make demo` (set up, then run the sample campaign) and `make test`.
VENV ?= .venv
PYTHON ?= python3
PORT ?= 5000
BIN = $(VENV)/bin
# Every installed package at the version the tests passed with (`make lock` writes it anew).
LOCK = requirements.lock

.PHONY: demo test lint setup lock

setup: $(VENV)/.installed

# Every step says what it is and how long it took on the reference machine (README, "How long");
# tools/heartbeat.py passes the output through and prints a "still ..." line after a few seconds of
# silence (pip's "Installing collected packages" says nothing for minutes). The packages come in
# stages, the core first, each with its own line.
BEAT = $(PYTHON) tools/heartbeat.py --every 5
PIP = $(BEAT) --label "still installing" -- $(BIN)/python -m pip install --progress-bar on -c $(LOCK)

$(VENV)/.installed: pyproject.toml $(LOCK)
	@echo "== setup 1/6: creating the virtual environment $(VENV) (32 s measured on a busy 2-core machine, as each figure here; README)"
	$(BEAT) --label "still creating it" -- $(PYTHON) -m venv $(VENV)
	@echo "== setup 2/6: pip at the version in $(LOCK) (17 s)"
	$(PIP) --upgrade pip
	@echo "== setup 3/6: SEPIA's core - scoring, IR measures, meta-evaluation (numpy, scipy, scikit-learn, lxml, SQLAlchemy; 2.3 min)"
	$(PIP) -e .
	@echo "== setup 4/6: the CJK analyzers (jieba, Sudachi and its 70 MB dictionary, OpenCC; 45 s)"
	$(PIP) -e '.[cjk]'
	@echo "== setup 5/6: search engines, plots, the web tool and its servers, PostgreSQL's driver (67 s)"
	$(PIP) -e '.[all]'
	@echo "== setup 6/6: the test tools and reference implementations (pytest, Playwright, ir_measures, ...; 3.6 min)"
	$(PIP) -e '.[all,test]'
	touch $@

demo: setup
	@echo "== demo: building the sample campaign, scoring every run, then serving the web tool (35 s to serving)"
	$(BIN)/sepia demo --port $(PORT)

# ruff; the layers of docs/architecture.md (import-linter's contract in pyproject.toml); mypy on the
# whole package, as [tool.mypy] in pyproject.toml says (about 12 s of CPU from cold, under 1 s cached).
lint: setup
	@echo "== lint 1/3: ruff (1 s)"
	$(BIN)/ruff check sepia tests tools
	@echo "== lint 2/3: the layers contract, lint-imports (2 s)"
	$(BEAT) -- $(BIN)/lint-imports
	@echo "== lint 3/3: mypy on the whole package (17 s of CPU from cold, 2 s cached)"
	$(BEAT) -- $(BIN)/mypy

# On every core, a test file to a worker (pytest-xdist), the longest first: the browser tests, then
# those marked slow, then the rest (tests/conftest.py; --no-loadscope-reorder keeps that order, where
# xdist would otherwise start the files with the most tests); the slowest 25 are listed at the end.
# Bytecode is written even where the environment sets PYTHONDONTWRITEBYTECODE: without it every
# worker rewrites every test module's asserts (10 s of collection, 4 s with) and every server or
# command a test starts compiles SEPIA again.
test: lint
	@echo "== test: about 3,000 tests on every core, the longest first (4.9 min on a quiet 2-core machine; README)"
	PYTHONDONTWRITEBYTECODE= $(BEAT) --label "still testing" -- $(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder --durations=25

# Resolve the newest versions pyproject.toml allows in a scratch environment and pin them all.
lock:
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --progress-bar on --upgrade pip
	.lock-venv/bin/python -m pip install --progress-bar on '.[all,test]'
	( echo "# Pinned versions of everything \`make setup\` installs; written by \`make lock\`, read as pip constraints."; \
	  .lock-venv/bin/python -m pip freeze --all --exclude sepia-eval --exclude setuptools ) > $(LOCK)
	rm -rf .lock-venv
