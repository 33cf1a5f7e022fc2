#!/usr/bin/env bash
# The borrower API under load (issue 3), measured against the release binary:
#   - 200 signed-in borrowers (half India, half Indonesia), each certified and with one order, seeded through the API;
#   - wrk on GET /api/v1/borrower/home and GET /api/v1/borrower/orders, each request as the next borrower (round
#     robin), on SQLite (a fresh file) and on PostgreSQL (a fresh database on 127.0.0.1:5432, dropped at the end;
#     skipped with a message when the server is unreachable): requests/s, p50 and p99, and every non-200 counted;
#   - the time to compute the Key Fact Statement of a 12-installment loan, and its APR alone
#     (`cargo bench -p kilat-domain --bench kfs`, criterion's median);
#   - the borrower app's first load in Chromium (scripts/bench/transfer.mjs, as bench-site.sh measures the site) of
#     /app/login?lang=1 and /app/login, no session, on the SQLite server: its compressed JavaScript, budget 200 KB
#     (KB = 1000 bytes) per page.
# Writes the figures, the machine and the commands between <!-- borrower:begin --> and <!-- borrower:end --> in
# docs/PERFORMANCE.md. The API and KFS figures have no budgets; it exits non-zero when a page's first load is over its
# JavaScript budget, a measurement could not be made or a response under load was not 200 (after writing the report).
# `make bench-borrower` (and `make bench`) run it after `make build`; it installs wrk and chromium (and psql, when
# PostgreSQL answers) from apt and e2e/'s npm packages (playwright-core) when missing.
#
# Knobs: KILAT_BIN (binary), PG_URL (an admin URL of the PostgreSQL server; default
# postgres://postgres@127.0.0.1:5432/postgres), BENCH_BORROWERS (default 200), BENCH_SEED_CONCURRENCY (borrowers seeded
# at a time; default 8), BENCH_WRK_DURATION (default 10s), BENCH_WRK_WARMUP (default 2s), BENCH_DATABASES (default
# "sqlite postgres"), BENCH_KFS (0 skips the criterion run), BENCH_APP (0 skips the app's first load; it needs the
# SQLite half), BENCH_KEEP (1 keeps the scratch folder).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
DOC=$ROOT/docs/PERFORMANCE.md
LUA=$ROOT/scripts/bench/borrower-wrk.lua
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
BORROWERS=${BENCH_BORROWERS:-200}
SEED_CONCURRENCY=${BENCH_SEED_CONCURRENCY:-8}
WRK_DURATION=${BENCH_WRK_DURATION:-10s}
WRK_WARMUP=${BENCH_WRK_WARMUP:-2s}
DATABASES=${BENCH_DATABASES:-sqlite postgres}
RUN_KFS=${BENCH_KFS:-1}
RUN_APP=${BENCH_APP:-1}
APP_PAGES=('/app/login?lang=1' /app/login)
ENDPOINTS=(home orders)
WRK_ARGS=(-t2 -c64)

log() { printf '\n== %s\n' "$*" >&2; }
die() { printf 'bench-borrower: %s\n' "$*" >&2; exit 2; }

# ---- tools -------------------------------------------------------------------------------------------------
pg_wanted=false
case " $DATABASES " in *" postgres "*) pg_wanted=true ;; esac
pg_port_open() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }

missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v curl >/dev/null || missing+=(curl)
if $pg_wanted && ! command -v psql >/dev/null && pg_port_open; then missing+=(postgresql-client); fi
case " $DATABASES " in *" sqlite "*) ;; *) RUN_APP=0 ;; esac # the app is measured on the SQLite server
if [ "$RUN_APP" = 1 ] && ! command -v chromium >/dev/null; then missing+=(chromium); fi
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v node >/dev/null || die "node is missing: install Node.js 20 or newer"
if [ "$RUN_APP" = 1 ] && { [ ! -f "$ROOT/e2e/node_modules/.installed" ] ||
  [ "$ROOT/e2e/package-lock.json" -nt "$ROOT/e2e/node_modules/.installed" ]; }; then
  log "npm ci in e2e (playwright-core, for the app's first load)"
  (cd "$ROOT/e2e" && npm ci --no-audit --no-fund --loglevel=error) >&2
  touch "$ROOT/e2e/node_modules/.installed"
fi
[ -x "$BIN" ] || die "$BIN is missing: run \`make build\` first (or set KILAT_BIN)"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
# A source of the binary changed after it was built: the figures would be of other code than the tree's.
STALE=$(cd "$ROOT" && find server/src server/migrations server/data server/products crates/*/src web/dist Cargo.lock \
  server/Cargo.toml -newer "$BIN" -type f -print -quit 2>/dev/null || true)
[ -z "$STALE" ] || echo "bench-borrower: $STALE changed after $BIN was built: run \`make build\` (the report will say so)" >&2

# ---- scratch folder and processes --------------------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-bench-borrower-XXXXXX")
PIDS=()
PG_DB=
drop_pg_db() {
  [ -n "$PG_DB" ] || return 0
  psql "$PG_URL" -q -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$PG_DB\" WITH (FORCE)" >/dev/null 2>&1 ||
    echo "bench-borrower: could not drop the PostgreSQL database $PG_DB" >&2
  PG_DB=
}
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  drop_pg_db
  if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "bench-borrower: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

wait_http() { # url what
  for _ in $(seq 1 300); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  die "$2 did not answer $1"
}

log_errors() { # log first_line last_line: the count of failed requests in those lines, then their causes, counted
  local lines
  lines=$(sed -n "$2,$3p" "$1" | sed 's/\x1b\[[0-9;]*m//g')
  grep -c 'request failed' <<<"$lines" || true
  # The first line of each error's chain ("0: error returned from database: …"), not backtrace frames ("0: anyhow::…").
  grep -E '^ +0: ' <<<"$lines" | sed -E 's/^ +0: //' | grep -vE '^<?[A-Za-z_][A-Za-z0-9_]*(::|<)' |
    sort | uniq -c | sort -rn | head -5 || true
}

rss_kb() { # pid: VmRSS in kB
  local key value _
  while read -r key value _; do
    if [ "$key" = VmRSS: ]; then echo "$value"; return; fi
  done <"/proc/$1/status"
  echo 0
}

# ---- the KFS benchmark is compiled first, so compiling does not overlap the wrk runs ------------------------
KFS_BENCH=(cargo bench -p kilat-domain --bench kfs --locked)
if [ "$RUN_KFS" = 1 ]; then
  log "compiling the KFS benchmark (${KFS_BENCH[*]} --no-run)"
  if ! (cd "$ROOT" && "${KFS_BENCH[@]}" --no-run) >&2; then
    echo "bench-borrower: the KFS benchmark does not compile: the report will say so" >&2
    RUN_KFS=failed
  fi
fi

# ---- one database: start kilat, seed, measure ------------------------------------------------------------
measure() { # name database_url
  local db=$1 url=$2 dir=$WORK/$1 port pid sessions app_lines seeded_lines
  mkdir -p "$dir"
  port=$(free_port)
  log "$db: starting kilat on 127.0.0.1:$port"
  KILAT_LISTEN=127.0.0.1:$port KILAT_DATABASE_URL=$url KILAT_MODE=development KILAT_TRUST_FORWARDED_FOR=true \
    RUST_LOG=warn "$BIN" serve >"$dir/kilat.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  wait_http "http://127.0.0.1:$port/readyz" "kilat on $db"

  # The app's first load, on a server nobody has used yet (as a new borrower finds it).
  if [ "$db" = sqlite ] && [ "$RUN_APP" = 1 ]; then
    log "$db: first load of ${APP_PAGES[*]} in chromium"
    node "$ROOT/scripts/bench/transfer.mjs" "${APP_PAGES[@]/#/http://127.0.0.1:$port}" >"$WORK/app-transfer.json" ||
      echo "bench-borrower: the app's first-load measurement failed: the report will say so" >&2
  fi
  app_lines=$(wc -l <"$dir/kilat.log")

  log "$db: seeding $BORROWERS borrowers, $SEED_CONCURRENCY at a time"
  sessions=$dir/sessions.txt
  node "$ROOT/scripts/bench/seed-borrowers.mjs" "http://127.0.0.1:$port" "$BORROWERS" "$SEED_CONCURRENCY" \
    "$sessions" "$dir/seed.json" ||
    die "$db: seeding failed (server log: $(tail -5 "$dir/kilat.log"))"
  seeded_lines=$(wc -l <"$dir/kilat.log")

  # One response of each endpoint as the first borrower: its status and size.
  for ep in "${ENDPOINTS[@]}"; do
    curl -sS -o "$dir/$ep.body" -w '%{http_code} %{size_download}\n' -H "X-Session-Id: $(head -1 "$sessions")" \
      -H 'Accept-Language: en' "http://127.0.0.1:$port/api/v1/borrower/$ep" >"$dir/$ep.response"
  done

  log "$db: wrk warm-up ($WRK_WARMUP each)"
  for ep in "${ENDPOINTS[@]}"; do
    BENCH_SESSIONS=$sessions wrk "${WRK_ARGS[@]}" -d"$WRK_WARMUP" -s "$LUA" "http://127.0.0.1:$port/api/v1/borrower/$ep" \
      >"$dir/warmup-$ep.txt"
  done
  for ep in "${ENDPOINTS[@]}"; do
    log "$db: wrk GET /api/v1/borrower/$ep for $WRK_DURATION"
    cut -d' ' -f1-3 /proc/loadavg >"$dir/load-$ep.txt"
    BENCH_SESSIONS=$sessions wrk "${WRK_ARGS[@]}" -d"$WRK_DURATION" --latency -s "$LUA" \
      "http://127.0.0.1:$port/api/v1/borrower/$ep" | tee "$dir/wrk-$ep.txt" >&2
  done
  kill -0 "$pid" 2>/dev/null || die "$db: kilat died during the run: $(tail -20 "$dir/kilat.log")"
  rss_kb "$pid" >"$dir/rss-kb.txt"
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # Requests the server logged as failed (a 5xx), while seeding and under wrk, with their causes.
  log_errors "$dir/kilat.log" "$((app_lines + 1))" "$seeded_lines" >"$dir/errors-seed.txt"
  log_errors "$dir/kilat.log" "$((seeded_lines + 1))" '$' >"$dir/errors-wrk.txt"
}

for db in $DATABASES; do
  case $db in
    sqlite)
      measure sqlite "sqlite://$WORK/sqlite.db"
      ;;
    postgres)
      mkdir -p "$WORK/postgres"
      if ! command -v psql >/dev/null || ! psql "$PG_URL" -q -tAc 'SELECT 1' >/dev/null 2>&1; then
        msg="PostgreSQL is unreachable at $PG_URL (start it with \`pg_ctlcluster 15 main start\`, or set PG_URL): skipped the PostgreSQL half."
        echo "$msg" >&2
        echo "$msg" >"$WORK/postgres/skipped.txt"
        continue
      fi
      PG_DB=kilat_bench_$(date +%Y%m%d%H%M%S)_$$
      log "postgres: creating database $PG_DB"
      psql "$PG_URL" -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$PG_DB\"" >/dev/null
      psql "$PG_URL" -q -tAc 'SHOW server_version' >"$WORK/postgres/version.txt" 2>/dev/null || true
      measure postgres "${PG_URL%/*}/$PG_DB"
      drop_pg_db
      ;;
    *) die "unknown database in BENCH_DATABASES: $db (sqlite or postgres)" ;;
  esac
done

# ---- KFS compute time --------------------------------------------------------------------------------------
if [ "$RUN_KFS" = 1 ]; then
  log "KFS benchmark (${KFS_BENCH[*]})"
  cut -d' ' -f1-3 /proc/loadavg >"$WORK/load-kfs.txt"
  (cd "$ROOT" && CRITERION_HOME="$WORK/criterion" "${KFS_BENCH[@]}") 2>&1 | tee "$WORK/kfs.txt" >&2 ||
    echo "bench-borrower: the KFS benchmark failed" >&2
fi

# ---- report ------------------------------------------------------------------------------------------------
dirty=
[ -z "$(git -C "$ROOT" status --porcelain -- server crates web Cargo.toml Cargo.lock 2>/dev/null)" ] || dirty=yes
{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)"
  echo "dirty=$dirty"
  echo "stale=$STALE"
  echo "load_start=$LOAD_START"
  echo "wrk=$(wrk -v 2>&1 | head -1 | awk '{print $1, $2}')"
  echo "rustc=$(rustc --version 2>/dev/null || echo '?')"
  echo "borrowers=$BORROWERS"
  echo "seed_concurrency=$SEED_CONCURRENCY"
  echo "wrk_args=${WRK_ARGS[*]}"
  echo "wrk_duration=$WRK_DURATION"
  echo "wrk_warmup=$WRK_WARMUP"
  echo "databases=$DATABASES"
  echo "run_kfs=$RUN_KFS"
  echo "run_app=$RUN_APP"
  echo "app_pages=${APP_PAGES[*]}"
  echo "chromium=$(chromium --version 2>/dev/null | head -1 | sed 's/ built on.*//')"
  echo "kfs_command=${KFS_BENCH[*]}"
} >"$WORK/meta.txt"
node "$ROOT/scripts/bench/borrower-report.mjs" "$WORK" "$DOC"
