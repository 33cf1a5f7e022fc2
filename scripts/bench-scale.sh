#!/usr/bin/env bash
# Kilat at the site's own scale on PostgreSQL (issue 20), against the release binary:
#   - a fresh database seeded by `kilat dev seed --borrowers B --orders N` (jobs/dataset.rs; default the promised
#     3,000,000 borrowers and 10,000,000 orders: about 2.5 hours and 66 GB on 2 cores), its time and the database's
#     size after VACUUM ANALYZE; or BENCH_DB_URL, a database seeded before (nothing seeded, nothing dropped);
#   - today's overdue job with its reminders, timed (`kilat jobs run overdue`), before the server starts, so that its
#     timer does not run it during the measurement (the server runs with `--jobs off`);
#   - BENCH_SAMPLE borrowers with an open loan (default 200, drawn at random from the seeded book), signed in one at a
#     time as the app would (SMS code, login), then their home, order list, loan plan, repayment choices (with their
#     amounts) and payment methods; in India
#     a payment of the installment due (UPI, its UTR) confirmed by finance; every call timed
#     (scripts/bench/scale-borrowers.mjs);
#   - `wrk -t2 -c$BENCH_CONNECTIONS -d$WRK_DURATION --latency` (after a 2 s warm-up) on the borrower reads, each request
#     as the next sampled borrower (scripts/bench/borrower-wrk.lua): home, order list, loan plan, repayment choices,
#     payment methods;
#     budget p99 under BENCH_P99_BUDGET_MS (default 10) and no non-200;
#   - EXPLAIN (ANALYZE, BUFFERS) of every statement those calls run, as PostgreSQL ran them (auto_explain on the
#     database's connections for one more pass of the calls with one borrower, read from PostgreSQL's log);
#   - the console's queues and the order view on the same database (scripts/bench-console.sh with BENCH_DB_URL; it
#     writes its own section), unless BENCH_SCALE_CONSOLE=0;
#   - last, 1,000 deleted accounts purged by the records-retention job (scripts/bench-retention.sh with BENCH_DB_URL;
#     its own section).
# Writes the figures, the machine, the load average and the plans between <!-- scale:begin --> and <!-- scale:end -->
# in docs/PERFORMANCE.md, then exits 1 when a budget was missed. `make bench-scale` runs it after `make build`; `make
# bench` does not (hours at the default scale).
#
# Knobs: KILAT_BIN (default target/release/kilat), PG_URL (an admin URL; default
# postgres://postgres@127.0.0.1:5432/postgres), BENCH_SCALE_BORROWERS, BENCH_SCALE_ORDERS, BENCH_DB_URL (with
# BENCH_PHONE_OFFSET: the borrowers that database had before it was seeded, default 0), BENCH_SAMPLE,
# BENCH_CONNECTIONS (default 64), BENCH_P99_BUDGET_MS, WRK_DURATION (default 10s), BENCH_SCALE_CONSOLE (default 1),
# PG_LOG (PostgreSQL's log file; default /var/log/postgresql/postgresql-15-main.log), BENCH_KEEP (1 keeps the scratch
# folder and the database).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DOC=$ROOT/docs/PERFORMANCE.md
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
BORROWERS=${BENCH_SCALE_BORROWERS:-3000000}
ORDERS=${BENCH_SCALE_ORDERS:-10000000}
SAMPLE=${BENCH_SAMPLE:-200}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
BUDGET_MS=${BENCH_P99_BUDGET_MS:-10}
WRK_DURATION=${WRK_DURATION:-10s}
PG_LOG=${PG_LOG:-/var/log/postgresql/postgresql-15-main.log}
LUA=$ROOT/scripts/bench/borrower-wrk.lua
PASSWORD=bench-console-password-1

log() { printf '\n== %s\n' "$*" >&2; }
die() { echo "bench-scale: $*" >&2; exit 1; }

[ -x "$BIN" ] || die "$BIN is missing: run \`make build\` first (or set KILAT_BIN)"
command -v wrk >/dev/null || { log "installing wrk"; apt-get install -y -qq wrk >/dev/null; }
command -v psql >/dev/null || { log "installing psql"; apt-get install -y -qq postgresql-client >/dev/null; }
psql "$PG_URL" -qc 'SELECT 1' >/dev/null 2>&1 || die "no PostgreSQL at $PG_URL"
[ -r "$PG_LOG" ] || die "PostgreSQL's log $PG_LOG cannot be read (set PG_LOG): the plans come from it"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-bench-scale.XXXXXX")
PIDS=()
DB_NAME=""
# The settings the plans' pass gives the database, taken back (only these: a database of BENCH_DB_URL keeps its own).
reset_explain() {
  local setting
  for setting in session_preload_libraries auto_explain.log_min_duration auto_explain.log_analyze \
    auto_explain.log_buffers auto_explain.log_timing; do
    psql "$PG_URL" -qc "ALTER DATABASE $DB_NAME RESET $setting" >/dev/null
  done
}
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "$DB_NAME" ]; then
    reset_explain 2>/dev/null || true
  fi
  if [ "${BENCH_KEEP:-0}" = 1 ]; then
    echo "bench-scale: kept $WORK${DB_NAME:+ and the database $DB_NAME}" >&2
  else
    [ -n "$DB_NAME" ] && [ -z "${BENCH_DB_URL:-}" ] &&
      psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null 2>&1
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}
wait_http() {
  for _ in $(seq 1 600); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
  die "kilat did not answer $1"
}
to_ms() { # a wrk latency (850.00us, 12.34ms, 1.02s): milliseconds
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
NOTES=()
if [ -n "${BENCH_DB_URL:-}" ]; then
  URL=$BENCH_DB_URL
  DB_NAME=$(psql "$URL" -tAc 'SELECT current_database()')
  OFFSET=${BENCH_PHONE_OFFSET:-0}
  NOTES+=("- The database \`$DB_NAME\`, seeded before this run (not timed here).")
else
  DB_NAME="kilat_bench_scale_$$"
  psql "$PG_URL" -qc "CREATE DATABASE $DB_NAME" >/dev/null
  URL="${PG_URL%/*}/$DB_NAME"
  OFFSET=0
fi
export KILAT_DATABASE_URL=$URL KILAT_MODE=development KILAT_TRUST_FORWARDED_FOR=true RUST_LOG=warn

if [ -z "${BENCH_DB_URL:-}" ]; then
  log "kilat dev seed --borrowers $BORROWERS --orders $ORDERS"
  started=$(date +%s)
  seeded=$("$BIN" dev seed --borrowers "$BORROWERS" --orders "$ORDERS") || die "seeding failed"
  echo "$seeded" >&2
  NOTES+=("- \`kilat dev seed --borrowers $BORROWERS --orders $ORDERS\`: $seeded ($(($(date +%s) - started)) s in all).")
  KILAT_OPERATOR_PASSWORD=$PASSWORD "$BIN" operator create --username bench-ops --role reviewer,finance,collections >&2
  KILAT_OPERATOR_PASSWORD=$PASSWORD "$BIN" operator create --username bench-support --role support >&2
  log "VACUUM ANALYZE"
  started=$(date +%s.%N)
  psql "$URL" -qc 'VACUUM ANALYZE' >/dev/null
  NOTES+=("- \`VACUUM ANALYZE\` after the seeding: $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s.")
fi
COUNTS=$(psql "$URL" -tAF' ' -c "SELECT (SELECT count(*) FROM borrowers), (SELECT count(*) FROM orders),
  (SELECT count(*) FROM orders WHERE status IN ('disbursed', 'overdue')), (SELECT count(*) FROM ledger_entries),
  pg_size_pretty(pg_database_size(current_database()))")
read -r N_BORROWERS N_ORDERS N_OPEN N_ENTRIES SIZE <<<"$COUNTS"
NOTES+=("- The book: $(printf "%'d" "$N_BORROWERS") borrowers, $(printf "%'d" "$N_ORDERS") orders ($(printf "%'d" "$N_OPEN") open loans), $(printf "%'d" "$N_ENTRIES") ledger entries; the database $SIZE.")

log "today's overdue job and reminders"
started=$(date +%s.%N)
overdue=$("$BIN" jobs run overdue 2>"$WORK/overdue.log") || die "the overdue job failed: $(tail -5 "$WORK/overdue.log")"
OVERDUE_SECS=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "$overdue" >&2
NOTES+=("- Today's overdue job with its reminders (\`kilat jobs run overdue\`, both markets): $OVERDUE_SECS s. It said: $(tr '\n' ' ' <<<"$overdue" | sed 's/ *$//').")

PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
start_server() {
  KILAT_LISTEN=127.0.0.1:$PORT "$BIN" serve --jobs off >"$WORK/kilat-$1.log" 2>&1 &
  SERVER=$!
  PIDS+=("$SERVER")
  wait_http "$BASE/readyz"
}
stop_server() { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }

# A tenth of the book's pages to draw from (all of a small one).
PERCENT=$(( N_ORDERS < 100000 ? 100 : 10 ))
# The sample: borrowers of the seeding with an open loan and no payment of it open, drawn at random (a block sample,
# so that drawing does not read the whole book).
sample_sql() { # how many
  cat <<SQL
SELECT b.id, b.market, b.phone_masked, o.order_no
FROM orders o TABLESAMPLE SYSTEM ($PERCENT) REPEATABLE ($1)
JOIN borrowers b ON b.id = o.borrower_id
WHERE o.status IN ('disbursed', 'overdue') AND b.id LIKE 'sd%'
  AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.status IN ('pending', 'verifying', 'held'))
LIMIT $1
SQL
}
psql "$URL" -tAF$'\t' -c "$(sample_sql "$SAMPLE")" >"$WORK/sample.tsv"
[ "$(wc -l <"$WORK/sample.tsv")" -ge "$SAMPLE" ] || die "only $(wc -l <"$WORK/sample.tsv") open loans sampled (of $SAMPLE)"

log "signing in $SAMPLE borrowers, their reads and (India) a confirmed payment each"
start_server calls
LOAD_CALLS=$(cut -d' ' -f1 /proc/loadavg)
node "$ROOT/scripts/bench/scale-borrowers.mjs" "$BASE" "$WORK/sample.tsv" "$OFFSET" bench-ops "$PASSWORD" "$WORK/calls" >&2

ROWS=()
FAILED=0
wrk_row() { # label sessions-file url
  local label=$1 sessions=$2 url=$3 out load_start load_end rps p50 p99 non200 verdict
  BENCH_SESSIONS=$sessions wrk -t2 -c"$CONNECTIONS" -d2s -s "$LUA" "$url" >/dev/null
  load_start=$(cut -d' ' -f1 /proc/loadavg)
  out=$(BENCH_SESSIONS=$sessions wrk -t2 -c"$CONNECTIONS" -d"$WRK_DURATION" --latency -s "$LUA" "$url")
  load_end=$(cut -d' ' -f1 /proc/loadavg)
  echo "$out" >&2
  rps=$(awk '/^Requests\/sec/ { printf "%\047.0f", $2 }' <<<"$out")
  p50=$(awk '$1 == "50%" { print $2 }' <<<"$out")
  p99=$(awk '$1 == "99%" { print $2 }' <<<"$out")
  non200=$(awk '/^non-200:/ { print $2 }' <<<"$out")
  if [ "${non200:-1}" = 0 ] && awk -v p="$(to_ms "$p99")" -v b="$BUDGET_MS" 'BEGIN { exit !(p < b) }'; then
    verdict=PASS
  else
    verdict=**FAIL**
    FAILED=1
  fi
  ROWS+=("| $label | $rps | $p50 | $p99 | ${non200:-?} | $verdict | $load_start → $load_end |")
}
log "wrk -t2 -c$CONNECTIONS -d$WRK_DURATION on the borrower reads"
API=$BASE/api/v1/borrower
wrk_row "home \`GET /borrower/home\`" "$WORK/calls/sessions.txt" "$API/home"
wrk_row "order list \`GET /borrower/orders\`" "$WORK/calls/sessions.txt" "$API/orders"
wrk_row "loan plan \`GET /borrower/orders/{orderNo}/plan\`" "$WORK/calls/plan.txt" "$API/orders"
wrk_row "repayment choices \`GET /borrower/orders/{orderNo}/repayment\`" "$WORK/calls/repayment.txt" "$API/orders"
wrk_row "payment methods \`GET /borrower/payment-types?orderNo=\`" "$WORK/calls/methods.txt" "$API/orders"
MEMORY=$(awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 } END { printf "%.1f MB (peak %.1f MB)", r / 1024, h / 1024 }' "/proc/$SERVER/status")
stop_server

# The plans: auto_explain on every connection the server opens to this database, for one more pass with one
# borrower; each plan is read back from PostgreSQL's log by this database's name.
log "EXPLAIN (ANALYZE, BUFFERS) of every statement, by auto_explain"
psql "$PG_URL" -q >/dev/null <<SQL
ALTER DATABASE $DB_NAME SET session_preload_libraries = 'auto_explain';
ALTER DATABASE $DB_NAME SET auto_explain.log_min_duration = 0;
ALTER DATABASE $DB_NAME SET auto_explain.log_analyze = on;
ALTER DATABASE $DB_NAME SET auto_explain.log_buffers = on;
ALTER DATABASE $DB_NAME SET auto_explain.log_timing = on;
SQL
# An Indian borrower not of the sample (signed in again at once, one of them would be told to wait for a new code).
psql "$URL" -tAF$'\t' -c "$(sample_sql $((SAMPLE + 100)))" >"$WORK/more.tsv"
{ grep -v -F -f <(cut -f1 "$WORK/sample.tsv") "$WORK/more.tsv" || true; } | awk -F'\t' '$2 == "IN" && !n++' >"$WORK/explain.tsv"
[ -s "$WORK/explain.tsv" ] || die "no Indian open loan outside the sample left to explain"
start_server explain
log_from=$(stat -c %s "$PG_LOG")
SCALE_MARKS=$WORK/marks.tsv node "$ROOT/scripts/bench/scale-borrowers.mjs" "$BASE" "$WORK/explain.tsv" "$OFFSET" bench-ops "$PASSWORD" "$WORK/explain" >&2
sleep 1
stop_server
reset_explain
# A plan is a "duration: … plan:" line of this database and the tab-indented lines after it; each goes under the call
# that started last before it was logged.
tail -c +"$((log_from + 1))" "$PG_LOG" | python3 -c '
import sys, re
db, marks = sys.argv[1], [l.rstrip("\n").split("\t") for l in open(sys.argv[2]) if l.strip()]
norm = lambda t: t.replace("T", " ").replace("Z", "")[:23]
marks = [(norm(t), call) for t, call in marks]
plans, keep = [], False
for line in sys.stdin:
    head = re.match(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) UTC \[\d+\] \S*@(\S+) +LOG: +(duration: .* plan:)", line)
    if head:
        keep = head.group(2) == db
        if keep: plans.append([head.group(1), head.group(3), []])
    elif re.match(r"^\d{4}-", line): keep = False
    elif keep: plans[-1][2].append(line.rstrip("\n").removeprefix("\t"))
current = None
for at, duration, body in plans:
    call = ([c for t, c in marks if t <= at] or ["(before the first call)"])[-1]
    if call != current:
        print(f"\n==== {call}"); current = call
    print(f"\n-- {duration}"); print("\n".join(body))
' "$DB_NAME" "$WORK/marks.tsv" >"$WORK/plans.txt"
PLANS=$(grep -c '^-- duration' "$WORK/plans.txt" || true)
[ "$PLANS" -gt 0 ] || die "no plan of $DB_NAME in $PG_LOG (is logging_collector writing elsewhere? set PG_LOG)"

calls_table() {
  node -e '
    const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const ms = (v) => `${v.toFixed(1)} ms`;
    for (const [label, c] of Object.entries(s.calls)) console.log(`| \`${label}\` | ${c.count} | ${ms(c.p50)} | ${ms(c.p99)} | ${ms(c.max)} |`);
  ' "$1"
}

if [ "${BENCH_SCALE_CONSOLE:-1}" = 1 ]; then
  log "the console's queues on the same database (scripts/bench-console.sh)"
  BENCH_DB_URL=$URL KILAT_BIN=$BIN PG_URL=$PG_URL "$ROOT/scripts/bench-console.sh" ||
    { NOTES+=("- The console's queues (scripts/bench-console.sh, its own section): a budget missed."); FAILED=1; }
fi

log "removing accounts on the same database (scripts/bench-retention.sh)"
BENCH_DB_URL=$URL KILAT_BIN=$BIN PG_URL=$PG_URL "$ROOT/scripts/bench-retention.sh" ||
  { NOTES+=("- Removing accounts (scripts/bench-retention.sh, its own section): the budget missed."); FAILED=1; }

SECTION=$WORK/section.md
{
  echo '<!-- scale:begin -->'
  echo "## At the site's scale on PostgreSQL (issue 20; scripts/bench-scale.sh)"
  echo
  echo "Written by \`scripts/bench-scale.sh\` (\`make bench-scale\`) on $(date -u '+%Y-%m-%dT%H:%MZ'), commit \`$(git -C "$ROOT" rev-parse --short HEAD)\`$(git -C "$ROOT" diff --quiet HEAD -- server crates || echo ' (with uncommitted changes to the code)')."
  echo "Machine: $(nproc) cores ($(uname -m)), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo); PostgreSQL $(psql "$PG_URL" -tAc 'SHOW server_version' | cut -d' ' -f1) on the same machine; kilat, wrk and PostgreSQL share the cores."
  echo "Load average (1, 5, 15 min) when the script started: $LOAD_BEFORE; when it wrote this: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  printf '%s\n' "${NOTES[@]}"
  echo
  echo "### Borrower reads under \`wrk -t2 -c$CONNECTIONS -d$WRK_DURATION --latency\`"
  echo
  echo "Each request as the next of the $SAMPLE sampled borrowers (their own order for the plan, the choices and the methods). Budget: p99 under $BUDGET_MS ms, no non-200."
  echo
  echo '| Endpoint | Requests/s | p50 | p99 | Non-200 | Budget | Load (1 min), start → end |'
  echo '|---|---:|---:|---:|---:|---|---|'
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "kilat's memory after the reads: $MEMORY."
  echo
  echo "### Each call on its own, one borrower at a time"
  echo
  echo "The $SAMPLE borrowers one after another (load average $LOAD_CALLS as they began): sign-in, the reads, and in India a payment of the installment due, its UTR and finance's confirmation."
  echo
  echo '| Call | Calls | p50 | p99 | Slowest |'
  echo '|---|---:|---:|---:|---:|'
  calls_table "$WORK/calls/summary.json"
  echo
  echo "### The plans"
  echo
  echo "Every statement of one more pass of these calls with one Indian borrower, as PostgreSQL planned and ran it (\`auto_explain\` with \`log_analyze\` and \`log_buffers\`: the same as \`EXPLAIN (ANALYZE, BUFFERS)\`; $PLANS statements)."
  echo
  echo '<details><summary>The plans</summary>'
  echo
  echo '```'
  cat "$WORK/plans.txt"
  echo '```'
  echo
  echo '</details>'
  echo
  echo "Command: \`scripts/bench-scale.sh\` (\`make bench-scale\`)$( [ "$BORROWERS" = 3000000 ] && [ "$ORDERS" = 10000000 ] || echo " with BENCH_SCALE_BORROWERS=$BORROWERS BENCH_SCALE_ORDERS=$ORDERS")."
  echo '<!-- scale:end -->'
} >"$SECTION"

if grep -q '<!-- scale:begin -->' "$DOC"; then
  awk -v f="$SECTION" '
    /<!-- scale:begin -->/ { while ((getline line < f) > 0) print line; skip = 1; next }
    /<!-- scale:end -->/ { skip = 0; next }
    !skip { print }
  ' "$DOC" >"$WORK/doc" && cat "$WORK/doc" >"$DOC"
else
  { echo; cat "$SECTION"; } >>"$DOC"
fi
log "wrote docs/PERFORMANCE.md (scale section)"
exit "$FAILED"
