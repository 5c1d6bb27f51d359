# The two commands of the README: `make demo` (set up, then run the sample campaign) and `make test`.
VENV ?= .venv
PYTHON ?= python3
PORT ?= 5000
BIN = $(VENV)/bin

.PHONY: demo test setup

setup: $(VENV)/.installed

# pip's own progress bars show while it downloads; the echo lines say what the minute is for.
$(VENV)/.installed: pyproject.toml
	@echo "== Creating the virtual environment $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --progress-bar on --upgrade pip
	@echo "== Installing SEPIA and its dependencies (about a minute on a fresh machine)"
	$(BIN)/python -m pip install --progress-bar on -e '.[test]'
	touch $@

demo: setup
	$(BIN)/sepia demo --port $(PORT)

test: setup
	$(BIN)/python -m pytest
