#!/usr/bin/env bash
# The operator console's queues under wrk at the book's scale (issues 8, 18 and 20), against the release binary:
#   - a fresh database per run, seeded by `kilat dev seed --borrowers B --orders N` (jobs/dataset.rs: set-based SQL;
#     borrowers with sealed PII and certification, orders across both markets and every status, loans with plans and
#     ledgers, arrears in every bucket, UTR payments waiting for finance): BENCH_CONSOLE_ORDERS orders (default
#     1,000,000) of BENCH_CONSOLE_BORROWERS borrowers (default 300,000); ANALYZE after the load (the seeder's); then
#     today's overdue job (`kilat jobs run overdue`: late charges, reminders), so that the server's timer does not run
#     it during the measurement; then, on PostgreSQL, VACUUM ANALYZE (the visibility map index-only scans read) and a
#     CHECKPOINT (the load's WAL written out before wrk starts);
#   - one operator with the reviewer, finance and collections roles (`kilat operator create`) and one with the
#     support role, each signed in through `POST /api/v1/console/login`;
#   - `wrk -t1 -c$BENCH_QUEUE_CONNECTIONS -d10s --latency` (default 8 connections: a team of operators working the
#     queues at once; each connection sends its next request as soon as the last is answered, so 8 connections are
#     far more than 8 people clicking) after a 2 s warm-up, with the operator's session cookie, on
#       GET /api/v1/console/applications?market=IN     the review queue (first page, reviewer)
#       GET /api/v1/console/applications/counts        its per-market counts
#       GET /api/v1/console/payouts?market=IN          finance's payout list (first page of 50: beneficiaries unmasked, each audited)
#       GET /api/v1/console/payments                   finance's repayments queue (UTRs waiting, held, refunds due)
#       GET /api/v1/console/payments/counts            its counts
#       GET /api/v1/console/collections?market=IN      the overdue queue (first page of 50, with its bucket counts)
#       GET /api/v1/console/orders/{orderNo}           the order view of an order in review (reviewer), for reference
#     and, for comparison, the review queue under `wrk -c64` (BENCH_WIDE_CONNECTIONS);
#   - the budget: every queue and count row under 50 ms at p99 (BENCH_P99_BUDGET_MS); the script exits 1 otherwise,
#     after writing the figures.
# Writes the figures, the machine and the load average between <!-- console:begin --> and <!-- console:end --> in
# docs/PERFORMANCE.md. `make bench-console` runs it (after `make build`); `make bench` too.
#
# Knobs: KILAT_BIN (default target/release/kilat), PG_URL (an admin URL of the PostgreSQL server; default
# postgres://postgres@127.0.0.1:5432/postgres), BENCH_DATABASES (default "postgres"; "sqlite postgres" for both),
# BENCH_CONSOLE_ORDERS, BENCH_CONSOLE_BORROWERS, BENCH_QUEUE_CONNECTIONS (default 8), BENCH_WIDE_CONNECTIONS (default
# 64), BENCH_P99_BUDGET_MS (default 50), WRK_DURATION (default 10s), BENCH_KEEP (1 keeps the scratch folder and the
# PostgreSQL databases), BENCH_DB_URL (benchmark an already seeded database instead: no seeding, nothing dropped).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
DOC=$ROOT/docs/PERFORMANCE.md
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
DATABASES=${BENCH_DATABASES:-postgres}
ORDERS=${BENCH_CONSOLE_ORDERS:-1000000}
BORROWERS=${BENCH_CONSOLE_BORROWERS:-300000}
CONNECTIONS=${BENCH_QUEUE_CONNECTIONS:-8}
WIDE=${BENCH_WIDE_CONNECTIONS:-64}
BUDGET_MS=${BENCH_P99_BUDGET_MS:-50}
WRK_DURATION=${WRK_DURATION:-10s}
WRK_ARGS=(-t1 -c"$CONNECTIONS")
PASSWORD=bench-console-password-1

die() { printf 'bench-console: %s\n' "$*" >&2; exit 2; }
log() { printf '\n== %s\n' "$*" >&2; }
[ -x "$BIN" ] || die "no binary at $BIN (make build, or set KILAT_BIN)"
command -v wrk >/dev/null || die "wrk is not installed"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-bench-console.XXXXXX")
PIDS=()
PG_DBS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${BENCH_KEEP:-0}" = 1 ]; then
    echo "bench-console: kept $WORK" >&2
  else
    for db in "${PG_DBS[@]}"; do psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}
wait_http() {
  for _ in $(seq 1 300); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
  die "kilat did not answer $1"
}
memory_mb() { awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 } END { printf "%.1f MB (peak %.1f MB)", r / 1024, h / 1024 }' "/proc/$1/status"; }

login() { # base username: the session cookie's value
  local base=$1 user=$2
  curl -fsS -D - -o /dev/null -H 'content-type: application/json' \
    -d "{\"username\":\"$user\",\"password\":\"$PASSWORD\"}" "$base/api/v1/console/login" |
    sed -n 's/^[Ss]et-[Cc]ookie: kilat_console=\([^;]*\).*/\1/p'
}
csrf_of() { # base username: a fresh session's "cookie csrf"
  local base=$1 user=$2 out
  out=$(curl -fsS -D "$WORK/login-headers" -H 'content-type: application/json' \
    -d "{\"username\":\"$user\",\"password\":\"$PASSWORD\"}" "$base/api/v1/console/login")
  echo "$(sed -n 's/^[Ss]et-[Cc]ookie: kilat_console=\([^;]*\).*/\1/p' "$WORK/login-headers") $(node -e 'console.log(JSON.parse(process.argv[1]).data.csrfToken)' "$out")"
}

ROWS=()
FAILED=0
to_ms() { # a wrk latency (850.00us, 12.34ms, 1.02s): milliseconds
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}
wrk_row() { # db label cookie url budget(yes|no) [connections]
  local db=$1 label=$2 cookie=$3 url=$4 budget=$5 conns=${6:-$CONNECTIONS} out load_start load_end rps p50 p99 non2xx status verdict
  local args=(-t1 -c"$conns")
  status=$(curl -sS -o /dev/null -w '%{http_code} %{size_download}' -H "Cookie: kilat_console=$cookie" "$url")
  wrk "${args[@]}" -d2s -H "Cookie: kilat_console=$cookie" "$url" >/dev/null
  load_start=$(cut -d' ' -f1 /proc/loadavg)
  out=$(wrk "${args[@]}" -d"$WRK_DURATION" --latency -H "Cookie: kilat_console=$cookie" "$url")
  load_end=$(cut -d' ' -f1 /proc/loadavg)
  echo "$out" >&2
  rps=$(awk '/^Requests\/sec/ { printf "%\047.0f", $2 }' <<<"$out")
  p50=$(awk '$1 == "50%" { print $2 }' <<<"$out")
  p99=$(awk '$1 == "99%" { print $2 }' <<<"$out")
  non2xx=$(awk '/Non-2xx or 3xx responses/ { print $NF }' <<<"$out")
  verdict="—"
  if [ "$budget" = yes ]; then
    if [ "${status%% *}" = 200 ] && [ -z "$non2xx" ] && awk -v p="$(to_ms "$p99")" -v b="$BUDGET_MS" 'BEGIN { exit !(p < b) }'; then
      verdict=PASS
    else
      verdict=FAIL
      FAILED=1
    fi
  fi
  ROWS+=("| $db | $label | $conns | ${status%% *}, $(printf "%'d" "${status##* }") B | $rps | $p50 | $p99 | ${non2xx:-0} | $verdict | $load_start → $load_end |")
}

run_db() { # name url
  local db=$1 url=$2 dir=$WORK/$1 port base pid cookie support pending seeded size
  mkdir -p "$dir"
  export KILAT_DATABASE_URL=$url KILAT_MODE=development KILAT_TRUST_FORWARDED_FOR=true RUST_LOG=warn
  local name=SQLite
  [ "$db" = postgres ] && name=PostgreSQL
  if [ -z "${BENCH_DB_URL:-}" ]; then
    log "$db: kilat dev seed --borrowers $BORROWERS --orders $ORDERS"
    seeded=$("$BIN" dev seed --borrowers "$BORROWERS" --orders "$ORDERS") || die "$db: seeding failed"
    echo "$seeded" >&2
    NOTES+=("- $name: \`kilat dev seed --borrowers $BORROWERS --orders $ORDERS\`: $seeded.")
    KILAT_OPERATOR_PASSWORD=$PASSWORD "$BIN" operator create --username bench-ops --role reviewer,finance,collections >&2
    KILAT_OPERATOR_PASSWORD=$PASSWORD "$BIN" operator create --username bench-support --role support >&2
  fi
  # Today's overdue job and reminders before the server starts: run by the server's timer instead, they would charge
  # and move every open loan while wrk measures (the first run of 2026-11-27 did).
  "$BIN" jobs run overdue >&2
  if [ "$db" = postgres ]; then
    psql "$url" -qc 'VACUUM ANALYZE' >/dev/null
    # The load's own checkpoint, before measuring: the seed, the job and VACUUM leave gigabytes of WAL, and the
    # checkpoints that WAL starts ran through the measurements (2026-12-04: one began as the payout list's run did,
    # whose audit inserts then wrote whole pages to the WAL; p99 99 ms, 32 ms with none running).
    psql "$url" -qc 'CHECKPOINT' >/dev/null
    size=$(psql "$url" -tAc 'SELECT pg_size_pretty(pg_database_size(current_database()))')
  else
    size=$(du -h "${url#sqlite:}" | cut -f1)
  fi
  port=$(free_port)
  base=http://127.0.0.1:$port
  KILAT_LISTEN=127.0.0.1:$port "$BIN" serve >"$dir/kilat.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  wait_http "$base/readyz"
  cookie=$(login "$base" bench-ops)
  support=$(login "$base" bench-support)
  [ -n "$cookie" ] && [ -n "$support" ] || die "$db: the bench operators could not sign in"
  local queue
  queue=$(curl -fsS -H "Cookie: kilat_console=$cookie" "$base/api/v1/console/applications?market=IN")
  pending=$(node -e 'console.log(JSON.parse(process.argv[1]).data[0].orderNo)' "$queue")
  log "$db: wrk -t1 -c$CONNECTIONS -d$WRK_DURATION"
  local api=$base/api/v1/console
  wrk_row "$name" "review queue \`GET /console/applications?market=IN\`" "$cookie" "$api/applications?market=IN" yes
  wrk_row "$name" "review counts \`GET /console/applications/counts\`" "$cookie" "$api/applications/counts" yes
  wrk_row "$name" "payout list \`GET /console/payouts?market=IN\` (page of 50, unmasked, audited)" "$cookie" "$api/payouts?market=IN" yes
  wrk_row "$name" "repayments queue \`GET /console/payments\`" "$cookie" "$api/payments" yes
  wrk_row "$name" "repayments counts \`GET /console/payments/counts\`" "$cookie" "$api/payments/counts" yes
  wrk_row "$name" "overdue queue \`GET /console/collections?market=IN\` (page of 50, bucket counts)" "$cookie" "$api/collections?market=IN" yes
  wrk_row "$name" "order view, in review (reviewer: unmasked, audited)" "$cookie" "$api/orders/$pending" no
  wrk_row "$name" "review queue, $WIDE connections (for comparison)" "$cookie" "$api/applications?market=IN" no "$WIDE"
  kill -0 "$pid" 2>/dev/null || die "$db: kilat died during the run: $(tail -20 "$dir/kilat.log")"
  NOTES+=("- $name: database size after the run $size; kilat's memory after the run $(memory_mb "$pid"); requests that failed in kilat's log: $(grep -c 'request failed' "$dir/kilat.log" || true).")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

NOTES=()
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for db in $DATABASES; do
  if [ -n "${BENCH_DB_URL:-}" ]; then
    run_db "$db" "$BENCH_DB_URL"
    continue
  fi
  case $db in
    sqlite) run_db sqlite "sqlite:$WORK/console.db" ;;
    postgres)
      psql "$PG_URL" -qc 'SELECT 1' >/dev/null 2>&1 || { echo "bench-console: no PostgreSQL at $PG_URL: skipped" >&2; continue; }
      name="kilat_bench_console_$$"
      psql "$PG_URL" -qc "CREATE DATABASE $name" >/dev/null
      PG_DBS+=("$name")
      run_db postgres "${PG_URL%/*}/$name" ;;
  esac
done

# A database seeded before (BENCH_DB_URL) is described by what it holds, not by this script's defaults.
if [ -n "${BENCH_DB_URL:-}" ]; then
  ORDERS=$(psql "$BENCH_DB_URL" -Atc 'SELECT COUNT(*) FROM orders')
  BORROWERS=$(psql "$BENCH_DB_URL" -Atc 'SELECT COUNT(*) FROM borrowers')
fi
SECTION=$WORK/section.md
{
  echo '<!-- console:begin -->'
  echo "## The console's queues at scale (issues 8, 18 and 20)"
  echo
  echo "Written by \`scripts/bench-console.sh\` (\`make bench-console\`, also run by \`make bench\`) on $(date -u '+%Y-%m-%dT%H:%MZ'), commit \`$(git -C "$ROOT" rev-parse --short HEAD)\`."
  echo "Machine: $(nproc) cores ($(uname -m)); load average (1, 5, 15 min) when the script started: $LOAD_BEFORE; when it wrote this: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "$(printf "%'d" "$ORDERS") orders of $(printf "%'d" "$BORROWERS") borrowers seeded by \`kilat dev seed\`; \`wrk -t1 -cN -d$WRK_DURATION --latency\`"
  echo "after a 2 s warm-up, with an operator's session cookie; wrk, kilat and the database share the cores. Budget: p99 under $BUDGET_MS ms for every queue and count."
  echo
  echo '| Database | Endpoint | Connections | Answer | Requests/s | p50 | p99 | Non-2xx | Budget | Load (1 min), start → end |'
  echo '|---|---|---:|---|---:|---:|---:|---:|---|---|'
  printf '%s\n' "${ROWS[@]}"
  echo
  printf '%s\n' "${NOTES[@]}"
  echo '<!-- console:end -->'
} >"$SECTION"

python3 - "$DOC" "$SECTION" <<'PY'
import re, sys
doc, section = sys.argv[1], open(sys.argv[2]).read().rstrip('\n')
text = open(doc).read()
pattern = re.compile(r'<!-- console:begin -->.*?<!-- console:end -->', re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip('\n') + '\n\n' + section + '\n'
open(doc, 'w').write(text)
PY
cat "$SECTION"
exit $FAILED
