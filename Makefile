# The two commands of the README: `make demo` (set up, then run the sample campaign) and `make test`.
VENV ?= .venv
PYTHON ?= python3
BIN = $(VENV)/bin

.PHONY: demo test setup

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: setup
	$(BIN)/sepia demo

test: setup
	$(BIN)/python -m pytest
