#!/usr/bin/env bash
# The borrower API under load (issues 3 and 7), measured against the release binary and, in the same run, against
# the reference server of ../shared/bench/ref-server (a plain axum + sqlx server doing the least an authenticated list
# must do):
#   - 200 signed-in borrowers (half India, half Indonesia), each certified and with one order, seeded through kilat's
#     API; the reference seeds its own 200 borrowers, each with a session and an order (`ref-server seed`);
#   - alternating rounds of `wrk -t2 -c64 -d10s` (kilat, reference, kilat, reference, …), each request as the next
#     borrower (round robin over the 200 tokens): kilat's GET /api/v1/borrower/orders and GET /api/v1/borrower/home,
#     each against the reference's order list run right after it; on SQLite (fresh files) and on PostgreSQL (fresh
#     databases on 127.0.0.1:5432, dropped at the end; skipped with a message when the server is unreachable):
#     requests/s, p50 and p99, every non-200 counted, the load average as each run started and ended, and the ratio
#     kilat/reference (the median of the rounds' ratios);
#   - kilat's memory after the SQLite run (VmRSS and VmHWM);
#   - the time to compute the Key Fact Statement of a 12-installment loan, and its APR alone
#     (`cargo bench -p kilat-domain --bench kfs`, criterion's median);
#   - the borrower app's first load in Chromium (scripts/bench/transfer.mjs, as bench-site.sh measures the site) of
#     /app/login?lang=1 and /app/login, no session, on the SQLite server: its compressed JavaScript, budget 150 KB
#     (KB = 1000 bytes) per page.
# Placements (issue 20): each measurement runs once per placement, both servers restarted for it. "Pinned": kilat and
# the reference on the server cores (`taskset -c`, so each starts one worker per core it has), wrk on the others, wrk
# with a thread per core it has; on SQLite by default (PostgreSQL's processes are not pinned). "Shared": no pinning,
# wrk -t2, both servers and wrk on every core, as before issue 20. The first pinned placement is the reference figure.
# Each run also records the CPU time the measured server and wrk used (from /proc and bash's `time`), so a run limited
# by wrk's core shows as such.
# Targets: pinned, SQLite (issue 20): the order list at least 1.0× the reference's order list, home at least 0.8× it,
# p99 under 10 ms for both, no non-200. Shared (issue 7), per database: the order list at least 1.0×, home at least
# 0.7×, p99 under 10 ms, no non-200; on PostgreSQL both at least 2.0× (issue 20). kilat's resident memory under 50 MB
# after the SQLite run (shared placement); plus the app's first-load budget. Writes the figures, PASS/FAIL per target, the machine and the commands between
# <!-- borrower:begin --> and <!-- borrower:end --> in docs/PERFORMANCE.md, then exits non-zero when a target failed
# or a measurement could not be made (every measurement runs first).
# `make bench-borrower` (and `make bench`) run it after `make build`; it installs wrk and chromium (and psql, when
# PostgreSQL answers) from apt and e2e/'s npm packages (playwright-core) when missing, and builds the reference with
# cargo into a target folder outside the repository.
#
# Knobs: KILAT_BIN (binary), PG_URL (an admin URL of the PostgreSQL server; default
# postgres://postgres@127.0.0.1:5432/postgres), BENCH_BORROWERS (default 200), BENCH_SEED_CONCURRENCY (borrowers seeded
# at a time; default 8), BENCH_ROUNDS (alternating rounds; default 3, at least 2), BENCH_WRK_DURATION (default 10s),
# BENCH_WRK_WARMUP (default 2s), BENCH_DATABASES (default "sqlite postgres"), BENCH_KFS (0 skips the criterion run),
# BENCH_APP (0 skips the app's first load; it needs the SQLite half), BENCH_KEEP (1 keeps the scratch folder),
# REF_SERVER_DIR (the reference's sources; default ../shared/bench/ref-server beside the repository), REF_TARGET_DIR
# (its cargo target folder; default ${XDG_CACHE_HOME:-~/.cache}/kilat-bench/ref-target), REF_BIN (a built reference:
# skips the cargo build), BENCH_SERVER_CPUS (the servers' cores in each pinned placement, as taskset takes them; spaces
# separate placements, e.g. "0 0-1 0-7" for 1, 2 and 8 server cores; default "0"; empty: no pinned placement),
# BENCH_WRK_CPUS (wrk's cores when pinned; default every core after the first, "1-N"), BENCH_SHARED (0 skips the
# shared placement), BENCH_PINNED_DATABASES (the databases measured pinned; default "sqlite").
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
ROUNDS=${BENCH_ROUNDS:-3}
REF_DIR=${REF_SERVER_DIR:-$ROOT/../shared/bench/ref-server}
REF_TARGET=${REF_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kilat-bench/ref-target}
APP_PAGES=('/app/login?lang=1' /app/login)
ENDPOINTS=(orders home)
WRK_CONNECTIONS=64
WRK_ARGS=(-t2 -c$WRK_CONNECTIONS)
CORES=$(nproc)
SERVER_CPUS=${BENCH_SERVER_CPUS-0}
WRK_CPUS=${BENCH_WRK_CPUS-1-$((CORES - 1))}
SHARED=${BENCH_SHARED:-1}
PINNED_DATABASES=${BENCH_PINNED_DATABASES:-sqlite}
CLK_TCK=$(getconf CLK_TCK)

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
[[ "$ROUNDS" =~ ^[0-9]+$ ]] && [ "$ROUNDS" -ge 2 ] || die "BENCH_ROUNDS must be 2 or more (it is $ROUNDS)"
# The placements: "pinned-CPUS" for each server core list (when the machine has a core left for wrk), then "shared".
PLACEMENTS=()
if [ -n "${SERVER_CPUS// /}" ]; then
  command -v taskset >/dev/null || die "taskset is missing (util-linux): it pins the servers and wrk"
  if [ "$CORES" -lt 2 ]; then
    echo "bench-borrower: one core only: no pinned placement" >&2
  else
    taskset -c "$WRK_CPUS" true 2>/dev/null || die "BENCH_WRK_CPUS=$WRK_CPUS is not a core list of this machine"
    for cpus in $SERVER_CPUS; do
      taskset -c "$cpus" true 2>/dev/null || die "BENCH_SERVER_CPUS: $cpus is not a core list of this machine"
      PLACEMENTS+=("pinned-${cpus//,/_}")
    done
  fi
fi
[ "$SHARED" = 0 ] || PLACEMENTS+=(shared)
[ ${#PLACEMENTS[@]} -gt 0 ] || die "no placement to measure (BENCH_SERVER_CPUS is empty and BENCH_SHARED=0)"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
# A source of the binary changed after it was built: the figures would be of other code than the tree's.
STALE=$(cd "$ROOT" && find server/src server/migrations server/data server/products crates/*/src web/dist Cargo.lock \
  server/Cargo.toml -newer "$BIN" -type f -print -quit 2>/dev/null || true)
[ -z "$STALE" ] || echo "bench-borrower: $STALE changed after $BIN was built: run \`make build\` (the report will say so)" >&2

# ---- scratch folder and processes --------------------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-bench-borrower-XXXXXX")
PIDS=()
PG_DBS=()
drop_pg_dbs() {
  local name
  for name in "${PG_DBS[@]}"; do
    psql "$PG_URL" -q -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null 2>&1 ||
      echo "bench-borrower: could not drop the PostgreSQL database $name" >&2
  done
  PG_DBS=()
}
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  drop_pg_dbs
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

memory_kb() { # pid: "VmRSS VmHWM" in kB (resident now, and its peak)
  local key value _ rss=0 hwm=0
  while read -r key value _; do
    case $key in VmRSS:) rss=$value ;; VmHWM:) hwm=$value ;; esac
  done <"/proc/$1/status"
  echo "$rss $hwm"
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

# ---- the reference server: built with cargo into a target folder outside the repository --------------------
# It is its own cargo workspace. Without a Cargo.lock of its own, cargo would write one into its folder, which is not
# ours to change: the sources are then copied beside the target folder and built there.
if [ -n "${REF_BIN:-}" ]; then
  [ -x "$REF_BIN" ] || die "REF_BIN=$REF_BIN is not an executable"
else
  [ -f "$REF_DIR/Cargo.toml" ] || die "the reference server is missing: no $REF_DIR/Cargo.toml (set REF_SERVER_DIR)"
  REF_DIR=$(cd "$REF_DIR" && pwd)
  ref_manifest=$REF_DIR/Cargo.toml
  if [ ! -f "$REF_DIR/Cargo.lock" ]; then
    ref_copy=$(dirname "$REF_TARGET")/ref-src
    log "the reference has no Cargo.lock: building a copy of it in $ref_copy"
    rm -rf "$ref_copy" && mkdir -p "$ref_copy" && cp -R "$REF_DIR/Cargo.toml" "$REF_DIR/src" "$ref_copy/"
    ref_manifest=$ref_copy/Cargo.toml
  fi
  mkdir -p "$REF_TARGET"
  log "building the reference (cargo build --release --manifest-path $ref_manifest --target-dir $REF_TARGET)"
  cargo build --release --manifest-path "$ref_manifest" --target-dir "$REF_TARGET" >&2 ||
    die "the reference server did not build"
  REF_BIN=$REF_TARGET/release/ref-server
fi

# ---- one database: start kilat and the reference, seed both, measure them in alternating rounds ------------
cpu_ticks() { # pid: the user and system CPU ticks of the process and all its threads so far
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  awk '{ print $12 + $13 }' <<<"${stat##*) }"
}

wrk_run() { # out_prefix url server_pid: one measured wrk run, with the load average as it starts and as it ends, and
  # the CPU seconds the server and wrk used ("server_s wrk_user_s wrk_sys_s wall_s" in out.cpu)
  local out=$1 url=$2 server=$3 before after
  cut -d' ' -f1-3 /proc/loadavg >"$out.load"
  before=$(cpu_ticks "$server")
  local TIMEFORMAT='%R %U %S'
  { time BENCH_SESSIONS=$SESSIONS_FILE "${WRK_PIN[@]}" wrk "${WRK_ARGS[@]}" -d"$WRK_DURATION" --latency -s "$LUA" "$url" \
    >"$out.txt" 2>"$out.err" || true; } 2>"$out.time"
  after=$(cpu_ticks "$server")
  cut -d' ' -f1-3 /proc/loadavg >>"$out.load"
  local wall wrk_user wrk_sys
  read -r wall wrk_user wrk_sys <"$out.time"
  awk -v b="$before" -v a="$after" -v t="$CLK_TCK" -v w="$wall" -v u="$wrk_user" -v s="$wrk_sys" \
    'BEGIN { printf "%.2f %s %s %s\n", (a - b) / t, u, s, w }' >"$out.cpu"
  sed -n '/Requests\/sec/p;/^non-200/p' "$out.txt" | tr '\n' ' ' >&2
  awk '{ printf "server CPU %s s, wrk CPU %s s user + %s s system, in %s s\n", $1, $2, $3, $4 }' "$out.cpu" >&2
}

start_kilat() { # dir url [cpus]: starts kilat (pinned to cpus when given); sets KILAT_PID and KILAT_PORT
  local dir=$1 url=$2 pin=()
  [ -z "${3:-}" ] || pin=(taskset -c "$3")
  KILAT_PORT=$(free_port)
  KILAT_LISTEN=127.0.0.1:$KILAT_PORT KILAT_DATABASE_URL=$url KILAT_MODE=development KILAT_TRUST_FORWARDED_FOR=true \
    RUST_LOG=warn "${pin[@]}" "$BIN" serve >"$dir/kilat.log" 2>&1 &
  KILAT_PID=$!
  PIDS+=("$KILAT_PID")
  wait_http "http://127.0.0.1:$KILAT_PORT/readyz" "kilat ($dir)"
}

start_ref() { # dir url [cpus]: starts the reference (pinned to cpus when given); sets REF_PID and REF_PORT
  local dir=$1 url=$2 pin=()
  [ -z "${3:-}" ] || pin=(taskset -c "$3")
  REF_PORT=$(free_port)
  "${pin[@]}" "$REF_BIN" serve "$url" "127.0.0.1:$REF_PORT" >"$dir/ref.log" 2>&1 &
  REF_PID=$!
  PIDS+=("$REF_PID")
  wait_http "http://127.0.0.1:$REF_PORT/item/0" "the reference ($dir)"
}

stop_pids() { # pids…
  kill "$@" 2>/dev/null || true
  for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
}

measure() { # name kilat_database_url reference_database_url
  local db=$1 url=$2 ref_url=$3 dir=$WORK/$1 sessions app_lines r ep placement
  mkdir -p "$dir"
  log "$db: starting kilat to seed it"
  start_kilat "$dir" "$url"

  # The app's first load, on a server nobody has used yet (as a new borrower finds it).
  if [ "$db" = sqlite ] && [ "$RUN_APP" = 1 ]; then
    log "$db: first load of ${APP_PAGES[*]} in chromium"
    node "$ROOT/scripts/bench/transfer.mjs" "${APP_PAGES[@]/#/http://127.0.0.1:$KILAT_PORT}" >"$WORK/app-transfer.json" ||
      echo "bench-borrower: the app's first-load measurement failed: the report will say so" >&2
  fi
  app_lines=$(wc -l <"$dir/kilat.log")

  log "$db: seeding kilat with $BORROWERS borrowers, $SEED_CONCURRENCY at a time"
  sessions=$dir/sessions.txt
  node "$ROOT/scripts/bench/seed-borrowers.mjs" "http://127.0.0.1:$KILAT_PORT" "$BORROWERS" "$SEED_CONCURRENCY" \
    "$sessions" "$dir/seed.json" ||
    die "$db: seeding failed (server log: $(tail -5 "$dir/kilat.log"))"
  stop_pids "$KILAT_PID"
  # Requests the server logged as failed (a 5xx) while seeding, with their causes.
  log_errors "$dir/kilat.log" "$((app_lines + 1))" '$' >"$dir/errors-seed.txt"

  log "$db: seeding the reference with $BORROWERS borrowers"
  local seed_started
  seed_started=$(date +%s.%N)
  "$REF_BIN" seed "$ref_url" "$BORROWERS" "$dir/ref-tokens.txt" >"$dir/ref-seed.log" 2>&1 ||
    die "$db: seeding the reference failed: $(tail -5 "$dir/ref-seed.log")"
  awk -v a="$(date +%s.%N)" -v b="$seed_started" 'BEGIN { printf "%.2f\n", a - b }' >"$dir/ref-seed-seconds.txt"

  for placement in "${PLACEMENTS[@]}"; do
    local pdir=$dir/$placement cpus=
    case $placement in
      pinned-*)
        case " $PINNED_DATABASES " in *" $db "*) ;; *) continue ;; esac
        cpus=${placement#pinned-}
        cpus=${cpus//_/,}
        WRK_PIN=(taskset -c "$WRK_CPUS")
        WRK_ARGS=(-t"$(taskset -c "$WRK_CPUS" nproc)" -c"$WRK_CONNECTIONS")
        ;;
      *)
        WRK_PIN=()
        WRK_ARGS=(-t2 -c"$WRK_CONNECTIONS")
        ;;
    esac
    mkdir -p "$pdir"
    echo "${WRK_ARGS[*]}" >"$pdir/wrk-args.txt"
    echo "$cpus" >"$pdir/server-cpus.txt"
    log "$db, $placement: starting kilat and the reference${cpus:+ on cores $cpus, wrk on $WRK_CPUS}"
    start_kilat "$pdir" "$url" "$cpus"
    start_ref "$pdir" "$ref_url" "$cpus"
    local kilat_url=http://127.0.0.1:$KILAT_PORT/api/v1/borrower ref_url_orders=http://127.0.0.1:$REF_PORT/orders
    # One response of each endpoint as the first borrower: its status and size.
    for ep in "${ENDPOINTS[@]}"; do
      curl -sS -o "$pdir/$ep.body" -w '%{http_code} %{size_download}\n' -H "X-Session-Id: $(head -1 "$sessions")" \
        -H 'Accept-Language: en' "$kilat_url/$ep" >"$pdir/$ep.response"
    done
    curl -sS -o "$pdir/ref.body" -w '%{http_code} %{size_download}\n' \
      -H "X-Session-Id: $(head -1 "$dir/ref-tokens.txt")" "$ref_url_orders" >"$pdir/ref.response"

    log "$db, $placement: wrk warm-up ($WRK_WARMUP each)"
    for ep in "${ENDPOINTS[@]}"; do
      BENCH_SESSIONS=$sessions "${WRK_PIN[@]}" wrk "${WRK_ARGS[@]}" -d"$WRK_WARMUP" -s "$LUA" "$kilat_url/$ep" \
        >"$pdir/warmup-$ep.txt"
    done
    BENCH_SESSIONS=$dir/ref-tokens.txt "${WRK_PIN[@]}" wrk "${WRK_ARGS[@]}" -d"$WRK_WARMUP" -s "$LUA" \
      "$ref_url_orders" >"$pdir/warmup-ref.txt"

    # Each kilat run is followed by a run of the reference: its ratio is kilat's over that reference run's.
    for r in $(seq 1 "$ROUNDS"); do
      for ep in "${ENDPOINTS[@]}"; do
        log "$db, $placement: round $r of $ROUNDS: kilat GET /api/v1/borrower/$ep, then the reference's GET /orders ($WRK_DURATION each)"
        SESSIONS_FILE=$sessions wrk_run "$pdir/wrk-$ep-$r" "$kilat_url/$ep" "$KILAT_PID"
        SESSIONS_FILE=$dir/ref-tokens.txt wrk_run "$pdir/wrk-ref-$ep-$r" "$ref_url_orders" "$REF_PID"
      done
    done
    kill -0 "$KILAT_PID" 2>/dev/null || die "$db: kilat died during the run: $(tail -20 "$pdir/kilat.log")"
    kill -0 "$REF_PID" 2>/dev/null || die "$db: the reference died during the run: $(tail -20 "$pdir/ref.log")"
    memory_kb "$KILAT_PID" >"$pdir/memory-kb.txt"
    memory_kb "$REF_PID" >"$pdir/ref-memory-kb.txt"
    ls "/proc/$KILAT_PID/task" 2>/dev/null | wc -l >"$pdir/threads.txt"
    stop_pids "$KILAT_PID" "$REF_PID"
    # Requests the server logged as failed (a 5xx) under wrk, with their causes.
    log_errors "$pdir/kilat.log" 1 '$' >"$pdir/errors-wrk.txt"
  done
}

for db in $DATABASES; do
  case $db in
    sqlite)
      measure sqlite "sqlite://$WORK/sqlite.db" "sqlite://$WORK/ref-sqlite.db"
      ;;
    postgres)
      mkdir -p "$WORK/postgres"
      if ! command -v psql >/dev/null || ! psql "$PG_URL" -q -tAc 'SELECT 1' >/dev/null 2>&1; then
        msg="PostgreSQL is unreachable at $PG_URL (start it with \`pg_ctlcluster 15 main start\`, or set PG_URL): skipped the PostgreSQL half."
        echo "$msg" >&2
        echo "$msg" >"$WORK/postgres/skipped.txt"
        continue
      fi
      pg_db=kilat_bench_$(date +%Y%m%d%H%M%S)_$$
      log "postgres: creating databases $pg_db and ${pg_db}_ref"
      for name in "$pg_db" "${pg_db}_ref"; do
        PG_DBS+=("$name")
        psql "$PG_URL" -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$name\"" >/dev/null
      done
      psql "$PG_URL" -q -tAc 'SHOW server_version' >"$WORK/postgres/version.txt" 2>/dev/null || true
      measure postgres "${PG_URL%/*}/$pg_db" "${PG_URL%/*}/${pg_db}_ref"
      drop_pg_dbs
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
  echo "wrk_connections=$WRK_CONNECTIONS"
  echo "placements=${PLACEMENTS[*]}"
  echo "pinned_databases=$PINNED_DATABASES"
  echo "wrk_cpus=$WRK_CPUS"
  echo "cores=$CORES"
  echo "clk_tck=$CLK_TCK"
  echo "wrk_duration=$WRK_DURATION"
  echo "wrk_warmup=$WRK_WARMUP"
  echo "rounds=$ROUNDS"
  echo "ref_bin=$REF_BIN"
  echo "ref_dir=${REF_SERVER_DIR:-../shared/bench/ref-server}"
  echo "ref_target=$REF_TARGET"
  echo "ref_commit=$( (sha256sum "$REF_DIR/src/main.rs" 2>/dev/null || echo '?') | cut -c1-12)"
  echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "databases=$DATABASES"
  echo "run_kfs=$RUN_KFS"
  echo "run_app=$RUN_APP"
  echo "app_pages=${APP_PAGES[*]}"
  echo "chromium=$(chromium --version 2>/dev/null | head -1 | sed 's/ built on.*//')"
  echo "kfs_command=${KFS_BENCH[*]}"
} >"$WORK/meta.txt"
node "$ROOT/scripts/bench/borrower-report.mjs" "$WORK" "$DOC"
