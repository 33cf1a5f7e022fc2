# The two commands the README names are `make run` and `make test`; everything else is a step of theirs.
SHELL := /bin/bash
CARGO ?= cargo
PG_URL ?= postgres://postgres@127.0.0.1:5432/postgres
NPM_CI := npm ci --no-audit --no-fund --loglevel=error

.PHONY: run build test-bin web test lint lint-quick test-rust test-rust-sqlite test-rust-pg test-web test-contract e2e openapi bench bench-app-a11y bench-borrower bench-callbacks bench-overdue bench-console bench-dashboard bench-bounds bench-scale bench-retention bench-audit bench-build chromium tools

## run: build everything and start the server on SQLite with demo data
run: build
	./target/release/kilat serve

## build: web app and release binary (target/release/kilat)
build: web
	$(CARGO) build --release --locked --bin kilat

# The binary the contract check and the browser journeys run: the debug build by default, which the Rust tests have
# compiled already (a release build on top cost a cold `make test` about 8 minutes); TEST_BIN=target/release/kilat
# after `make build` runs them against the release binary. It is the binary of the tests' build (`cargo test
# --no-run`: nothing to compile after test-rust-sqlite), not `cargo build --bin kilat`, whose features for the shared
# crates differ from the tests' and rebuilt 49 of them and the server (about 2 minutes of a cold `make test`).
TEST_BIN ?= target/debug/kilat
test-bin: web
	@if [ "$(TEST_BIN)" = target/debug/kilat ]; then $(TEST_CARGO) test --workspace --locked --no-run --quiet; \
	else [ -x "$(TEST_BIN)" ] || { echo "TEST_BIN=$(TEST_BIN) is missing" >&2; exit 1; }; fi

tools:
	@command -v cargo >/dev/null || { echo "cargo is missing: install Rust from rustup.rs" >&2; exit 1; }
	@command -v npm >/dev/null || { echo "npm is missing: install Node.js 20 or newer" >&2; exit 1; }

web/node_modules/.installed: web/package.json web/package-lock.json | tools
	cd web && $(NPM_CI)
	touch $@

e2e/node_modules/.installed: e2e/package.json e2e/package-lock.json | tools
	cd e2e && $(NPM_CI)
	touch $@

# Lighthouse for `make bench` only, apart from e2e/ so the install CI does stays small.
scripts/bench/node_modules/.installed: scripts/bench/package.json scripts/bench/package-lock.json | tools
	cd scripts/bench && $(NPM_CI)
	touch $@

## web: build the three web areas into web/dist (hashed, precompressed, prerendered)
# Only when a file of web/ (but its packages and its output) changed since the last build: a rebuild rewrites web/dist,
# which the release binary embeds, so an unneeded one would rebuild the binary too.
WEB_SOURCES := $(shell find web -path web/node_modules -prune -o -path web/dist -prune -o -type f -print)
web: web/dist/index.html

web/dist/index.html: web/node_modules/.installed $(WEB_SOURCES)
	cd web && npm run --silent build
	touch $@

## openapi: regenerate the committed OpenAPI document and the web client's types from the code
openapi: web/node_modules/.installed
	$(CARGO) run --quiet --bin kilat -- openapi > web/src/shared/api/openapi.json
	cd web && npm run --silent gen:api

## test: every check and test (lint, Rust on SQLite and PostgreSQL, web unit tests, the API contract, browser journeys)
# Each step runs in turn with its time printed (scripts/steps.sh); the first to fail stops the run.
# Its first step lints all but the Rust code; clippy lints that inside the tests' build (TEST_CARGO below).
test:
	@MAKE="$(MAKE)" scripts/steps.sh lint-quick test-rust-sqlite test-rust-pg test-web test-contract e2e

## lint: formatting, clippy, the web app's types and lints
lint: lint-quick
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

lint-quick: web
	$(CARGO) fmt --all --check
	cd web && npm run --silent typecheck && npm run --silent lint

# The tests' cargo: clippy-driver (rustc with clippy's lints) compiles the workspace's own crates, as `cargo clippy`
# does, with `-D warnings`, so the tests' build is linted as `make lint`'s clippy lints and a lint fails it. A separate
# `cargo clippy` checked every dependency once more (a cold check build of its own: 3 min 14 s of a 30-minute cold
# `make test` on 2 cores). Every cargo call of the tests goes through it: the wrapper is part of what cargo
# fingerprints, and a call without it would compile the workspace's crates again.
# In CI (a fresh clone, built once) the workspace's crates are built without incremental compilation: its cache cost
# a cold test build of them 201 s against 169 s. Elsewhere it stays on, for quick rebuilds after an edit. Nor with
# line tables there: nothing in CI prints a backtrace (a failing test shows its panic's location, which needs none),
# and they cost the cold test build 54 s of CPU (788 → 734 s). Elsewhere they stay, for a backtrace read at a desk.
CLIPPY_DRIVER = $(shell command -v clippy-driver)
TEST_CARGO = $(if $(CLIPPY_DRIVER),,$(error clippy-driver is missing: rustup component add clippy)) \
	$(if $(CI),CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0) \
	RUSTC_WORKSPACE_WRAPPER="$(CLIPPY_DRIVER)" CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__ $(CARGO)

test-rust: test-rust-sqlite test-rust-pg

# First the build of every target, benchmarks too, so clippy lints what `cargo clippy --all-targets` lints; nextest
# then builds nothing more.
test-rust-sqlite: web
	$(TEST_CARGO) test --workspace --all-targets --locked --no-run
	$(TEST_CARGO) nextest run --workspace --locked

# The API suite again on PostgreSQL. Outside CI an unreachable server is a warning; in CI it is a failure. The run's
# databases are kept until it ends, then dropped together (server/tests/api/helpers.rs, `pg_run`: a third of the time). Built as the
# workspace, like test-rust-sqlite, and filtered to the API binary: `-p kilat-server` resolved other features for the
# shared crates and rebuilt 49 of them and the suite (2 min 11 s of a cold `make test`).
# A local server's test databases are made in memory (`pg_run_tablespace`), in a folder under /dev/shm that its
# `postgres` user owns (made as root; otherwise they stay in the server's own tablespace), removed after the drops.
test-rust-pg: web
	@if ! (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null && command -v pg_ctlcluster >/dev/null; then \
	  pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql | head -1) main start 2>/dev/null || true; sleep 2; fi
	@if (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then \
	  run=r$$(date +%s)p$$$$; ts=; \
	  case "$(PG_URL)" in *@127.0.0.1[:/]*|*@localhost[:/]*) \
	    if [ "$$(id -u)" = 0 ] && [ -d /dev/shm ] && id -u postgres >/dev/null 2>&1; then \
	      ts=/dev/shm/kilat-pg-$$run; install -d -o postgres -g postgres -m 700 "$$ts" || ts=; fi;; esac; \
	  export TEST_DATABASE_URL=$(PG_URL) TEST_DATABASE_RUN=$$run TEST_DATABASE_TABLESPACE_DIR=$$ts; \
	  $(TEST_CARGO) nextest run --workspace --locked -E 'binary_id(kilat-server::api)'; status=$$?; \
	  if $(TEST_CARGO) nextest run --workspace --locked --run-ignored only --no-capture \
	    -E 'binary_id(kilat-server::api) & test(=pg_run::the_runs_databases_are_dropped)'; then \
	    [ -z "$$ts" ] || rm -rf "$$ts"; else status=1; fi; \
	  exit $$status; \
	elif [ -n "$$CI" ]; then echo "PostgreSQL is unreachable at 127.0.0.1:5432 and CI is set: failing." >&2; exit 1; \
	else echo "PostgreSQL is unreachable at 127.0.0.1:5432: skipped the PostgreSQL run (it fails when CI is set)."; fi

test-web: web/node_modules/.installed
	cd web && npm run --silent test

## test-contract: schemathesis checks every answer of the binary against the OpenAPI document (Python 3.11+ with venv; PyPI on the first run)
test-contract: test-bin
	scripts/schemathesis.sh $(TEST_BIN)

chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

## e2e: browser journeys in Debian's chromium against the binary (TEST_BIN) on a fresh SQLite file
# The banner's journeys first and alone: they time a 3-second carousel against drags, and with four files of journeys
# and their browsers at once on 2 cores a drag's round trips took over 2.7 s (five tries failed). The others four at once
# (e2e/run.mjs: node:test started in the order given, which `node --test` does not keep), the longest files first
# (E2E_LONGEST, 40–80 s each; the rest take 3–40 s), then the rest by name: by name, the longest and the third longest
# started among the last, and the run ended on them with the cores half idle for about 40 s.
E2E_NODE = KILAT_BIN=$(abspath $(TEST_BIN)) node
E2E_LONGEST = loan-life borrower-axe loan-dates repay
e2e: test-bin chromium e2e/node_modules/.installed
	cd e2e && $(E2E_NODE) run.mjs tests/banner.test.mjs
	cd e2e && $(E2E_NODE) run.mjs --concurrency 4 $(E2E_LONGEST:%=tests/%.test.mjs) \
	  $$(ls tests/*.test.mjs | grep -v -x -F $(foreach f,banner $(E2E_LONGEST),-e tests/$(f).test.mjs))

## bench: performance budgets (Lighthouse, first-view bytes, kilat vs nginx, memory) and the borrower API figures; writes docs/PERFORMANCE.md
# The scripts all run even when one fails; the target fails when any did.
bench: build chromium e2e/node_modules/.installed scripts/bench/node_modules/.installed
	scripts/bench-site.sh; status=$$?; scripts/bench-app-a11y.sh || status=1; scripts/bench-borrower.sh || status=1; scripts/bench-callbacks.sh || status=1; scripts/bench-overdue.sh || status=1; scripts/bench-console.sh || status=1; scripts/bench-dashboard.sh || status=1; scripts/bench-bounds.sh || status=1; scripts/bench-build.sh || status=1; exit $$status

## bench-app-a11y: Lighthouse accessibility of the borrower app's home, loan and payment pages at 390×844 (budget: 100)
bench-app-a11y: build chromium scripts/bench/node_modules/.installed
	scripts/bench-app-a11y.sh

## bench-callbacks: repayments credited per second through signed payment callbacks (100 orders at once) on SQLite and PostgreSQL
bench-callbacks:
	scripts/bench-callbacks.sh

## bench-overdue: the overdue job over 100,000 and 1,000,000 open installments on SQLite and PostgreSQL (budget: 100,000 in under 10 s)
bench-overdue: build
	scripts/bench-overdue.sh

## bench-console: the console's queues (review, payouts, repayments, overdue, their counts) under wrk over 1,000,000 orders seeded by `kilat dev seed` on PostgreSQL (budget: p99 < 50 ms)
bench-console: build
	scripts/bench-console.sh

## bench-scale: the promised scale on PostgreSQL (3,000,000 borrowers, 10,000,000 orders: hours and ~66 GB): borrower sign-in, reads under wrk (p99 < 10 ms), payments and finance's confirmation, the overdue job, every hot statement's plan, the console's queues; not part of `make bench`
bench-scale: build
	scripts/bench-scale.sh

## bench-retention: the records-retention job purging 1,000 deleted accounts of a book of 1,000,000 orders seeded by `kilat dev seed` on PostgreSQL (budget: 20 ms per account); bench-scale runs it on its own book; not part of `make bench`
bench-retention: build
	scripts/bench-retention.sh

## bench-audit: the console's audit search, each filter and a family, over 5,000,000 entries on PostgreSQL and SQLite (BASELINE_BIN=… compares an older build in alternating rounds); not part of `make bench`
bench-audit: build
	scripts/bench-audit.sh

## bench-build: a cold `make build` (what `make run` does first) of HEAD on a fresh clone (budget: 360 s on 2 cores); BENCH_BUILD_BASELINE=<commit> builds another commit in alternating rounds to compare
bench-build:
	scripts/bench-build.sh

## bench-dashboard: the admins' dashboard over 1,000,000 orders on PostgreSQL, with no day kept, the job that keeps the ended days, then with them kept (against the collections queue in the same run)
bench-dashboard: build
	scripts/bench-dashboard.sh

## bench-bounds: the server's peak memory under 8 simultaneous image bombs and 100 simultaneous console sign-ins (budget: 300 MB)
bench-bounds: build
	scripts/bench-bounds.sh

## bench-borrower: the borrower app's first load (150 KB budget), the borrower API under wrk (home, orders) on SQLite and PostgreSQL, the KFS compute time
bench-borrower: build
	scripts/bench-borrower.sh
