# The two commands of the README: `make demo` (set up, then run the sample campaign) and `make test`.
VENV ?= .venv
PYTHON ?= python3
PORT ?= 5000
BIN = $(VENV)/bin
# Every installed package at the version the tests passed with (`make lock` writes it anew).
LOCK = requirements.lock

.PHONY: demo test lint setup lock

setup: $(VENV)/.installed

# pip's own progress bars show while it downloads; the echo lines say what the minute is for.
$(VENV)/.installed: pyproject.toml $(LOCK)
	@echo "== Creating the virtual environment $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --progress-bar on --upgrade -c $(LOCK) pip
	@echo "== Installing SEPIA and its dependencies at the versions in $(LOCK) (about a minute on a fresh machine)"
	$(BIN)/python -m pip install --progress-bar on -c $(LOCK) -e '.[test]'
	touch $@

demo: setup
	$(BIN)/sepia demo --port $(PORT)

# ruff; the layers of docs/architecture.md (import-linter's contract in pyproject.toml); mypy on the
# whole package, as [tool.mypy] in pyproject.toml says (about 12 s of CPU from cold, under 1 s cached).
lint: setup
	$(BIN)/ruff check sepia tests tools
	$(BIN)/lint-imports
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest

# Resolve the newest versions pyproject.toml allows in a scratch environment and pin them all.
lock:
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --progress-bar on --upgrade pip
	.lock-venv/bin/python -m pip install --progress-bar on '.[test]'
	( echo "# Pinned versions of everything \`make setup\` installs; written by \`make lock\`, read as pip constraints."; \
	  .lock-venv/bin/python -m pip freeze --all --exclude sepia-eval --exclude setuptools ) > $(LOCK)
	rm -rf .lock-venv
