# The two commands of the README: `make run` and `make test`. Each does all the set-up.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 5000
STAMP  := $(VENV)/.installed
# Debian packages the tests need: Chromium for browser tests (its headless shell drives the pages, the full
# browser checks that the app installs), poppler to read PDFs back,
# Pango for WeasyPrint, HarfBuzz's subsetter (renders ~4x faster), a font, and LibreOffice Calc without
# its windows, to open the CSV files as a spreadsheet does.
DEBS   := chromium chromium-headless-shell poppler-utils libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core \
          libreoffice-calc-nogui
# The translations: the .po files are the source (in git), the .mo files are compiled from them.
I18N   := scorer/translations
MO     := $(patsubst %.po,%.mo,$(wildcard $(I18N)/*/LC_MESSAGES/messages.po))

.PHONY: install run test test-fast lint bench debs clean messages language

# The bytecode of our own modules too, as pip writes it for an installed wheel: where the
# environment says PYTHONDONTWRITEBYTECODE, every command and server start compiled them again.
install: $(STAMP) $(MO)
	@$(PY) -m compileall -q scorer >/dev/null

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# Compiled again whenever its .po changes (a pull, a new translation).
$(I18N)/%/LC_MESSAGES/messages.mo: $(I18N)/%/LC_MESSAGES/messages.po $(STAMP)
	$(VENV)/bin/pybabel compile --statistics -l $* -i $< -o $@

# After adding or changing a string: extract it into the template, merge it into every
# catalogue (new messages come out empty, changed ones fuzzy), then translate and `make install`.
messages: $(STAMP)
	$(VENV)/bin/pybabel extract -F babel.cfg -k _l -k lazy_gettext -k N_ --add-location=file --sort-output \
	  --no-wrap -c TRANSLATORS: --project=scarto-scorer -o $(I18N)/messages.pot .
	$(VENV)/bin/pybabel update -i $(I18N)/messages.pot -d $(I18N) --no-wrap --ignore-obsolete

# A new language, L=xx (a code Babel knows, as pt or fr_CA): its catalogue made from the template,
# then what else a language needs, said. The languages themselves are data: LANGUAGE_NAMES.
CARDNAMES := scorer/engine/cardnames.py
language: $(STAMP)
	@test -n "$(L)" || { echo "Say which language: make language L=pt"; exit 2; }
	@test ! -e $(I18N)/$(L)/LC_MESSAGES/messages.po || \
	  { echo "$(L) has its catalogue already: $(I18N)/$(L)/LC_MESSAGES/messages.po"; exit 2; }
	$(VENV)/bin/pybabel init -i $(I18N)/messages.pot -d $(I18N) -l $(L) --no-wrap
	@echo "Made $(I18N)/$(L)/LC_MESSAGES/messages.po. Then:"
	@echo "  1. $(CARDNAMES): add \"$(L)\" to LANGUAGE_NAMES with the language's name in itself (every menu"
	@echo "     and test reads it), its card names to SUITS, SINGULAR_SUITS, COURTS, TRUMPS and _COURT_LETTERS,"
	@echo "     and how a card is named (rank and suit) to full_name; articles, if it has them: scorer/sheets/words.py."
	@echo "  2. Translate every entry of the catalogue (none empty, none fuzzy); make install compiles it."
	@echo "  3. docs/spec/RECORD.md lists the languages a match file may name: the shared spec first."
	@echo "  4. The tests that expect a language's words (tests/test_i18n.py, tests/spreadsheetutil.py) need"
	@echo "     its words too: tests/test_i18n.py::test_every_language_is_whole fails until all is there."

run: install
	$(VENV)/bin/flask --app scorer init-db
	@echo "Serving on http://$(HOST):$(PORT)/ (Ctrl-C stops)"
	HOST=$(HOST) PORT=$(PORT) $(PY) -m scorer.serve

debs:
	@missing=""; for p in $(DEBS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "The tests need these Debian packages:$$missing"; \
	    echo "Install them as root: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

# axe-core for the accessibility tests, from the npm registry into the git-ignored node_modules.
AXE := node_modules/axe-core/axe.min.js

$(AXE):
	@command -v npm >/dev/null || { echo "The accessibility tests need npm (Debian: apt-get install npm)"; exit 1; }
	npm install --no-save --no-audit --no-fund axe-core@4

# The tests run in worker processes (pytest-xdist; each worker has its own browser, servers and
# temporary folders); worksteal hands a worker's queued tests to another when it runs dry. The whole
# suite runs two workers a core: a worker spends part of its time waiting (on Chromium, on a server
# it started, on a page's timer), which another fills (bench/RESULTS.md, "The test suite's time").
# The quick loop's tests mostly compute: a worker a core. JOBS=0 runs them all in this one
# process, as plain `pytest` does.
CORES  := $(shell nproc 2>/dev/null || echo 2)
JOBS   ?= $(shell expr $(CORES) \* 2)
XDIST   = -n $(JOBS) --dist worksteal
# pytest rewrites the tests' asserts as it imports them (about 6 CPU-s for the suite, in every worker)
# and keeps the result as bytecode, unless the environment says PYTHONDONTWRITEBYTECODE, as it does on
# these machines: then every run did it all again. A second run now finds it done.
PYTEST  = env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest

test: install debs $(AXE)
	$(PYTEST) $(XDIST)

# The quick loop: everything but the slow tests (fuzzing, crashes, load, page weight, the wheel)
# and the browser tests.
test-fast: JOBS = $(CORES)
test-fast: install debs
	$(PYTEST) -q $(XDIST) -m "not slow and not browser"

lint: install
	$(VENV)/bin/ruff check scorer tests bench
	$(VENV)/bin/mypy

bench: install debs
	$(PY) bench/bench_engine.py
	$(PY) bench/bench_web.py
	$(PY) bench/bench_pdf.py
	$(PY) bench/bench_scale.py
	$(PY) bench/bench_ceiling.py
	$(PY) bench/bench_ratings.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis node_modules
