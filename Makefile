# Kartothek: the two commands are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
JS_STAMP := clients/js/node_modules/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run serve worker test test-fast lint install install-dev install-js bench bench-import bench-pack bench-serve bench-pdf bench-play bench-png bench-preview bench-checks bench-editor bench-paths mutate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# The Node tools the tests run on the API's schemas (ajv, redocly, openapi-typescript, tsc),
# pinned by tools/node/package-lock.json: part of the dev install (make install-dev, make test);
# without npm, tests/test_node_tools.py is skipped.
NODE_STAMP := tools/node/node_modules/.installed
$(NODE_STAMP): tools/node/package.json tools/node/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix tools/node --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: tests/test_node_tools.py will be skipped"; fi

$(DEV_STAMP): pyproject.toml | $(BIN)/python $(NODE_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP) $@

install: $(STAMP)
install-dev: $(DEV_STAMP)

## install-js: the JS client's devDependencies (TypeScript, eventsource for Node), pinned by its package-lock.json
$(JS_STAMP): clients/js/package.json clients/js/package-lock.json
	npm ci --prefix clients/js --no-audit --no-fund
	touch $@

install-js: $(JS_STAMP)

## run: set up, migrate, load the starter catalogue, publish its first releases, create an admin user, serve on 127.0.0.1:8000
## (uvicorn, ASGI, reloading on code changes; WhiteNoise serves the static files)
## (.env: written once when absent, git-ignored: DEBUG=1 and a fresh SECRET_KEY, so `python manage.py ...`
## works in the checkout afterwards too; environment variables win over it, and DEBUG off refuses its key)
## The reloader watches the project's own packages only (RELOAD_DIRS), never .venv or var/.
RELOAD_DIRS := kartothek common cards exports games curation kartothek_client
run: export DEBUG ?= 1
run: $(STAMP)
	$(BIN)/python -m kartothek.localenv .env
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py import_catalogue
	$(BIN)/python manage.py publish_starter
	$(BIN)/python manage.py ensure_admin --base-url http://$(HOST):$(PORT)
	$(BIN)/python -m uvicorn kartothek.asgi:application --host $(HOST) --port $(PORT) --reload \
		$(foreach dir,$(RELOAD_DIRS),--reload-dir $(dir))

## serve: production server: gunicorn with uvicorn workers (ASGI; deploy/gunicorn.conf.py), DEBUG off, static files through
## WhiteNoise; every setting from the environment (deploy/production.env.example, README: Production)
serve: export DEBUG = 0
serve: $(STAMP)
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py collectstatic --no-input
	$(BIN)/python manage.py check --deploy
	HOST=$(HOST) PORT=$(PORT) $(BIN)/python -m gunicorn --config deploy/gunicorn.conf.py kartothek.asgi:application

## worker: the background worker for big decks (django-tasks' database backend); run it
## beside `make run` or the app servers, as many as you like (each job runs once)
worker: $(STAMP)
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py db_worker

## test: ruff and the import contracts (pyproject.toml, docs/architecture.md), then every test
## (browser and slow ones included)
test: $(DEV_STAMP) $(JS_STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m mypy --strict games/engines kartothek_client
	$(BIN)/python -m pytest -m "" $(PYTEST_ARGS)

## test-fast: the default selection (no browser, no slow tests)
test-fast: $(DEV_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

## bench: the speed benchmarks (ratios against a floor measured in the same run)
bench: bench-import bench-pack bench-serve bench-pdf bench-play bench-paths bench-png bench-preview bench-checks bench-editor

bench-import: $(DEV_STAMP)
	$(BIN)/python bench/import_speed.py

bench-pack: $(DEV_STAMP)
	$(BIN)/python bench/pack_speed.py

bench-pdf: $(DEV_STAMP)
	$(BIN)/python bench/pdf_speed.py

bench-png: $(DEV_STAMP)
	$(BIN)/python bench/png_speed.py

## bench-preview: one card preview (PNG at screen size) on one core, and fit checks of 10,000 texts
bench-preview: $(DEV_STAMP)
	$(BIN)/python bench/preview_speed.py

## bench-checks: every translation check over 10,000 texts (target: under 5 s)
bench-checks: $(DEV_STAMP)
	$(BIN)/python bench/checks_speed.py

## bench-editor: the translation editor (pages, a search) and the progress page at 200 and at 20,000 objects (target: within 1.5x)
bench-editor: $(DEV_STAMP)
	$(BIN)/python bench/editor_speed.py

## bench-serve: `make serve`'s server beside the same app on WSGI and nginx (deploy/nginx.conf) on
## loopback; installs Debian's wrk and nginx-light when it may (as root), else a Python client, no nginx
bench-serve: $(DEV_STAMP)
	@command -v wrk >/dev/null 2>&1 || apt-get install -y -qq wrk >/dev/null 2>&1 || \
		echo "wrk is not installed (apt-get install wrk): the bench uses its Python client"
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || \
		apt-get install -y -qq nginx-light >/dev/null 2>&1 || \
		echo "nginx is not installed (apt-get install nginx-light): no front-proxy figures"
	$(BIN)/python bench/serve_speed.py $(BENCH_ARGS)

## bench-play: gunicorn on loopback, 50 rooms of 6 players polling once a second for 60 s
bench-play: $(DEV_STAMP)
	$(BIN)/python bench/play_speed.py

## bench-paths: a play request's CPU through Django's ASGI path and through the play path
bench-paths: $(DEV_STAMP)
	$(BIN)/python bench/request_path_speed.py

.PHONY: load faults fuzz-api chaos

## load: production stack on loopback (PostgreSQL, gunicorn, DEBUG off) under 200 locust
## clients for 5 minutes; p50/p99 per endpoint, each worker's memory (README: Proof under load)
## (LOAD_ARGS e.g. --duration 60 --users 50)
load: $(DEV_STAMP)
	$(BIN)/python tools/load.py $(LOAD_ARGS)

## faults: a worker killed and PostgreSQL restarted during 2 minutes of that load, an import
## killed midway; every request succeeds afterwards and nothing applied is lost
faults: $(DEV_STAMP)
	$(BIN)/python tools/faults.py $(FAULTS_ARGS)

## chaos: the chaos party's long run (docs/play.md): CHAOS_RUNS seeds of every game in Chromium, a random
## disturbance after each step (the network gone 5-20 s among them); KARTOTHEK_CHAOS_SEED=N replays one
CHAOS_RUNS ?= 3
chaos: $(DEV_STAMP)
	KARTOTHEK_CHAOS_LONG=1 KARTOTHEK_CHAOS_RUNS=$(CHAOS_RUNS) $(BIN)/python -m pytest -m "" -s \
		tests/play/test_browser_chaos.py $(PYTEST_ARGS)

## fuzz-api: schemathesis against the served /api/openapi.json (packs and play)
fuzz-api: $(DEV_STAMP)
	$(BIN)/python tools/fuzz_api.py $(FUZZ_ARGS)

## mutate: mutation check of the content rules (docs/mutation-testing.md); fails below 85 %
mutate: $(DEV_STAMP)
	$(BIN)/python tools/mutate.py cards/validation.py tests/test_validation_rules.py \
		--equivalent docs/mutation-testing.md --min-score 85
	$(BIN)/python tools/mutate.py cards/text.py tests/test_text_rules.py \
		--equivalent docs/mutation-testing.md --min-score 85

## lint: ruff, and lint-imports: no import runs from a lower floor of the code to a higher one
lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
