# Two commands: `make run` (set up, demo data, serve) and `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: setup run test test-fast bench lint messages clean browsers

$(PY):
	@PYTHON_BIN=$$(scripts/find-python.sh) || exit 1; \
	echo "Creating $(VENV) with $$PYTHON_BIN"; \
	"$$PYTHON_BIN" -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

setup: $(STAMP)
	@# A .po conflict merges as a union of both catalogues (msgcat); `make messages` then normalises.
	@git rev-parse --git-dir >/dev/null 2>&1 && git config merge.pocat.driver 'msgcat --use-first -o %A.merged %A %B && mv %A.merged %A' || true
	@# The compiled .mo catalogues are build output, never committed (they cannot be merged).
	$(PY) manage.py compilemessages --ignore=.venv --verbosity 0
	$(PY) manage.py migrate --noinput --verbosity 0
	$(PY) manage.py collectstatic --noinput --verbosity 0

run: setup
	$(PY) manage.py demo_data
	@# The demo's seats and participants become players, their rated games a rating.
	$(PY) manage.py link_players --create
	$(PY) manage.py recompute_ratings
	@echo ""
	@echo "  Open http://$(HOST):$(PORT)/  — demo host login: demo / demo-pass"
	@echo ""
	$(VENV)/bin/daphne --bind $(HOST) --port $(PORT) --websocket_timeout -1 mafia_protocol.asgi:application

# Browser tests need Debian's chromium; `make browsers` installs it (root).
browsers:
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

test: setup
	$(PY) -m pytest -q $(PYTEST_ARGS)

test-fast: setup
	$(PY) -m pytest -q -m "not browser and not live" $(PYTEST_ARGS)

bench: setup
	@for f in benchmarks/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy games tournaments players mafia_protocol discord_bridge
	$(VENV)/bin/lint-imports  # the walls between the parts ([tool.importlinter] in pyproject.toml)

# Deterministic (games/management/commands/makemessages.py): no locations, sorted, no fuzzy
# guesses; CI fails when it would change a catalogue or a message lacks a translation.
messages: $(STAMP)
	$(PY) manage.py makemessages -l en -l ru --ignore=.venv --ignore=benchmarks --ignore=tests --ignore=staticfiles --ignore=var
	$(PY) manage.py compilemessages --ignore=.venv --verbosity 0
	$(PY) scripts/check_catalogues.py

clean:
	rm -rf $(VENV) var staticfiles
