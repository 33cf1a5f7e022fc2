#!/usr/bin/env bash
# The dashboard of the book (issue 18 item 10) over 1,000,000 orders on PostgreSQL, against the release binary:
#   - `kilat dev seed-loans` writes BENCH_DASHBOARD_ORDERS paid-out six-month loans (India, with their ledger and
#     arrears rows); then SQL spreads them over the last 365 days (orders, ledger dates, a timeline of
#     pending_review → approved → disbursed, a payout each) and ends all but BENCH_DASHBOARD_OPEN_PERCENT of them
#     (`repaid`, with a `repaid` timeline entry), and ANALYZE;
#   - `GET /api/v1/console/dashboard?market=IN` (admin) with no day kept (BENCH_DASHBOARD_COLD_ROUNDS rounds); the job
#     `kilat jobs run dashboard-days` (the 29 ended days of the window kept, migration 0045), timed; then the dashboard
#     again and, as the reference in the same run, the collections queue `GET /api/v1/console/collections?market=IN`
#     (the same session), alternating, BENCH_DASHBOARD_ROUNDS rounds each (one request at a time: a dashboard is read
#     by a person, not a crowd);
#   - EXPLAIN (ANALYZE, BUFFERS) of the dashboard's slowest statements are in docs/PERFORMANCE.md, "Dashboard",
#     written by hand from a run with BENCH_KEEP=1.
# Writes the figures between <!-- dashboard:begin --> and <!-- dashboard:end --> in docs/PERFORMANCE.md.
#
# Knobs: KILAT_BIN (default target/release/kilat), PG_URL (default postgres://postgres@127.0.0.1:5432/postgres),
# BENCH_DASHBOARD_ORDERS (default 1000000), BENCH_DASHBOARD_OPEN_PERCENT (default 10), BENCH_DASHBOARD_ROUNDS
# (default 10), BENCH_DASHBOARD_COLD_ROUNDS (default 3: the dashboard before any day is kept), BENCH_KEEP (1 keeps the
# database and the server's log), BENCH_DASHBOARD_DB (the URL of a database an earlier run kept: no seed, and it is
# kept; its kept days are deleted first), BASELINE_BIN and BASELINE_NAME (another build, e.g. one from before a change:
# served beside KILAT_BIN on the same database, its dashboard a third request of each alternating round; it must know
# every migration KILAT_BIN applied, e.g. the older code built with the newer migrations' files).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
DOC=$ROOT/docs/PERFORMANCE.md
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
ORDERS=${BENCH_DASHBOARD_ORDERS:-1000000}
OPEN_PERCENT=${BENCH_DASHBOARD_OPEN_PERCENT:-10}
ROUNDS=${BENCH_DASHBOARD_ROUNDS:-10}
COLD_ROUNDS=${BENCH_DASHBOARD_COLD_ROUNDS:-3}
KEEP=${BENCH_KEEP:-0}
PASSWORD=bench-dashboard-password-1

die() { printf 'bench-dashboard: %s\n' "$*" >&2; exit 2; }
[ -x "$BIN" ] || die "no binary at $BIN (make build, or set KILAT_BIN)"
psql "$PG_URL" -qc 'SELECT 1' >/dev/null 2>&1 || die "PostgreSQL at $PG_URL does not answer"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-bench-dashboard.XXXXXX")
EXISTING=${BENCH_DASHBOARD_DB:-}
if [ -n "$EXISTING" ]; then
  NAME= URL=$EXISTING
else
  NAME="kilat_bench_dashboard_$$" URL="${PG_URL%/*}/$NAME"
fi
PID= PID2=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  [ -n "$PID2" ] && kill "$PID2" 2>/dev/null && wait "$PID2" 2>/dev/null || true
  if [ -z "$NAME" ]; then
    rm -rf "$WORK"
  elif [ "$KEEP" = 1 ]; then
    echo "bench-dashboard: kept database $NAME and $WORK" >&2
  else
    psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $NAME WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

export KILAT_DATABASE_URL=$URL KILAT_MODE=development RUST_LOG=warn KILAT_LOG__FORMAT=json
started=$SECONDS
if [ -z "$EXISTING" ]; then
psql "$PG_URL" -qc "CREATE DATABASE $NAME" >/dev/null
"$BIN" dev seed-loans --market IN --product in-flexi-6m --amount 2000000 --term m6 --payout 2026-01-01 \
  --loans "$ORDERS" >&2
# Spread over the last year, a timeline and a payout each, most of them ended.
psql "$URL" -v ON_ERROR_STOP=1 -q >&2 <<SQL
\\timing on
UPDATE orders SET created_at = (extract(epoch FROM now()) * 1000)::bigint
    - (abs(hashtext(id)::bigint) % 365)::bigint * 86400000 - (abs(hashtext(id || 't')::bigint) % 86400000)::bigint;
-- Repaid 30 days after the application, or halfway to now for the last 30 days' orders: nothing dated after now.
UPDATE orders SET status = 'repaid', closed_at = created_at + LEAST(30::bigint * 86400000,
        GREATEST(0, ((extract(epoch FROM now()) * 1000)::bigint - created_at) / 2))
    WHERE abs(hashtext(id || 'open')::bigint) % 100 >= $OPEN_PERCENT;
UPDATE ledger_entries e SET on_date = to_char(to_timestamp(o.created_at / 1000.0 + 3600 + 19800) AT TIME ZONE 'UTC',
    'YYYY-MM-DD') FROM orders o WHERE o.id = e.order_id;
UPDATE loan_arrears a SET oldest_unpaid_due = NULL FROM orders o WHERE o.id = a.order_id AND o.status = 'repaid';
INSERT INTO order_events (id, order_id, status, actor, at)
    SELECT id || '-e1', id, 'pending_review', 'borrower', created_at FROM orders;
INSERT INTO order_events (id, order_id, status, actor, at)
    SELECT id || '-e2', id, 'approved', 'bench', created_at + 1800000 FROM orders;
INSERT INTO order_events (id, order_id, status, actor, at)
    SELECT id || '-e3', id, 'disbursed', 'bench', created_at + 3600000 + (abs(hashtext(id)::bigint) % 7200000)::bigint FROM orders;
INSERT INTO order_events (id, order_id, status, actor, at)
    SELECT id || '-e4', id, 'repaid', 'bench', closed_at FROM orders WHERE status = 'repaid';
INSERT INTO payouts (id, order_id, provider, bank_reference, amount, operator_id, created_at)
    SELECT id || '-p', id, 'bench', 'BENCH' || order_no, net_disbursed, NULL,
           created_at + 3600000 + (abs(hashtext(id)::bigint) % 7200000)::bigint FROM orders;
-- The statuses and positions were changed above without the book's moves: the next start counts the book again
-- (migration 0052's marker; a binary from before it has no such table).
DO \$\$ BEGIN
  IF to_regclass('book_count_pending') IS NOT NULL THEN
    INSERT INTO book_count_pending (id) VALUES (1) ON CONFLICT DO NOTHING;
  END IF;
END \$\$;
ANALYZE;
SQL
seed_secs="in $((SECONDS - started)) s"
else
  seed_secs="earlier (BENCH_DASHBOARD_DB)"
fi
counts=$(psql "$URL" -Atc "SELECT (SELECT count(*) FROM orders) || ' orders, ' ||
  (SELECT count(*) FROM orders WHERE status IN ('disbursed', 'overdue')) || ' open, ' ||
  (SELECT count(*) FROM order_events) || ' timeline entries, ' || (SELECT count(*) FROM ledger_entries) ||
  ' ledger entries, ' || (SELECT count(*) FROM ledger_lines) || ' ledger lines'")
echo "bench-dashboard: seeded ${seed_secs}: $counts" >&2

ADMIN=bench-admin-$$
KILAT_OPERATOR_PASSWORD=$PASSWORD "$BIN" operator create --username "$ADMIN" --role admin,collections >&2
# No day kept yet (a database kept from an earlier run has its days).
psql "$URL" -qc "DELETE FROM dashboard_payout_minutes; DELETE FROM dashboard_days" >/dev/null
port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
base=http://127.0.0.1:$port
# Jobs off: the days are kept by hand below, between the two series of rounds.
KILAT_LISTEN=127.0.0.1:$port "$BIN" serve --jobs off >"$WORK/kilat.log" 2>&1 &
PID=$!
for _ in $(seq 1 300); do curl -fsS -o /dev/null "$base/readyz" 2>/dev/null && break; sleep 0.1; done
BASELINE_BIN=${BASELINE_BIN:-}
BASELINE_NAME=${BASELINE_NAME:-baseline}
if [ -n "$BASELINE_BIN" ]; then
  [ -x "$BASELINE_BIN" ] || die "no binary at $BASELINE_BIN"
  port2=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
  KILAT_LISTEN=127.0.0.1:$port2 "$BASELINE_BIN" serve --jobs off >"$WORK/baseline.log" 2>&1 &
  PID2=$!
  for _ in $(seq 1 300); do curl -fsS -o /dev/null "http://127.0.0.1:$port2/readyz" 2>/dev/null && break; sleep 0.1; done
fi
cookie=$(curl -fsS -D - -o /dev/null -H 'content-type: application/json' \
  -d "{\"username\":\"$ADMIN\",\"password\":\"$PASSWORD\"}" "$base/api/v1/console/login" |
  sed -n 's/^[Ss]et-[Cc]ookie: kilat_console=\([^;]*\).*/\1/p')
[ -n "$cookie" ] || die "no session: $(tail -5 "$WORK/kilat.log")"

time_of() { curl -fsS -o /dev/null -w '%{time_total}' -H "Cookie: kilat_console=$cookie" "$1"; }
dashboard=$base/api/v1/console/dashboard?market=IN
queue=$base/api/v1/console/collections?market=IN
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
# Nothing kept yet (the first request after the upgrade, or with the jobs stopped): every day from the tables.
: >"$WORK/cold"
for _ in $(seq 1 "$COLD_ROUNDS"); do time_of "$dashboard" >>"$WORK/cold"; echo >>"$WORK/cold"; done
# The job keeps the 29 ended days (the worker does it once a day; here by hand, timed).
kept_started=$(date +%s.%N)
"$BIN" jobs run dashboard-days --market IN >&2
keep_secs=$(awk -v a="$kept_started" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
curl -fsS -o /dev/null -H "Cookie: kilat_console=$cookie" "$dashboard"
# One warm-up each, then alternating rounds.
time_of "$dashboard" >/dev/null
time_of "$queue" >/dev/null
# The same session serves on the baseline (sessions are in the database).
[ -n "$BASELINE_BIN" ] && time_of "http://127.0.0.1:$port2/api/v1/console/dashboard?market=IN" >/dev/null
: >"$WORK/dashboard" ; : >"$WORK/queue" ; : >"$WORK/baseline"
for _ in $(seq 1 "$ROUNDS"); do
  time_of "$dashboard" >>"$WORK/dashboard"; echo >>"$WORK/dashboard"
  time_of "$queue" >>"$WORK/queue"; echo >>"$WORK/queue"
  if [ -n "$BASELINE_BIN" ]; then
    time_of "http://127.0.0.1:$port2/api/v1/console/dashboard?market=IN" >>"$WORK/baseline"; echo >>"$WORK/baseline"
  fi
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
stats() { sort -n "$1" | awk '{ v[NR] = $1 * 1000 } END { printf "%.0f ms | %.0f ms | %.0f ms", v[int((NR + 1) / 2)], v[NR], v[1] }'; }

SECTION=$WORK/section.md
{
  echo '<!-- dashboard:begin -->'
  echo '## Dashboard of the book (issue 18 item 10; scripts/bench-dashboard.sh)'
  echo
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(uname -m)), PostgreSQL, load average $load_start at the"
  echo "start and $load_end at the end. Seeded ${seed_secs}: $counts."
  echo "One request at a time: first $COLD_ROUNDS rounds of the dashboard with no day kept, then \`kilat jobs run dashboard-days\`"
  echo "(the worker's job: the 29 ended days of the window computed once and kept) in $(printf '%.1f' "$keep_secs") s, then $ROUNDS rounds"
  if [ -n "$BASELINE_BIN" ]; then
    echo "of the dashboard (today alone from the tables), the collections queue (the reference) and the dashboard served"
    echo "by $BASELINE_NAME (\`BASELINE_BIN\`, beside it on the same database) alternating."
  else
    echo "of the dashboard (today alone from the tables) and the collections queue (the reference) alternating."
  fi
  echo
  echo '| request | median | slowest | fastest |'
  echo '|---|---|---|---|'
  echo "| \`GET /console/dashboard?market=IN\` (admin), no day kept | $(stats "$WORK/cold") |"
  echo "| \`GET /console/dashboard?market=IN\` (admin), ended days kept | $(stats "$WORK/dashboard") |"
  echo "| \`GET /console/collections?market=IN\` (reference) | $(stats "$WORK/queue") |"
  if [ -n "$BASELINE_BIN" ]; then
    echo "| \`GET /console/dashboard?market=IN\` (admin), ended days kept, $BASELINE_NAME | $(stats "$WORK/baseline") |"
  fi
  echo '<!-- dashboard:end -->'
} >"$SECTION"

python3 - "$DOC" "$SECTION" <<'PY'
import sys, re
doc, section = sys.argv[1], open(sys.argv[2]).read().rstrip('\n')
text = open(doc).read()
pattern = re.compile(r'<!-- dashboard:begin -->.*?<!-- dashboard:end -->', re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip('\n') + '\n\n' + section + '\n'
open(doc, 'w').write(text)
PY
cat "$SECTION"
