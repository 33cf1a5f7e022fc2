#!/usr/bin/env bash
# Removing accounts at scale on PostgreSQL (issue 20), against the release binary: BENCH_RETENTION_ACCOUNTS (default
# 1000) deleted accounts of a large book purged by the records-retention job (`kilat jobs run records-retention`,
# docs/ACCOUNT.md "Retention"), timed. Removing a borrower, an order or a payment makes PostgreSQL look for the rows
# whose foreign keys name it; a key without an index scans its whole table once per row removed, so this is where a
# missing index shows (migration 0048). The book: BENCH_DB_URL, a database seeded before (scripts/bench-scale.sh runs
# this on its own; nothing seeded, the purged accounts stay purged), or a fresh database seeded by `kilat dev seed
# --borrowers BENCH_RETENTION_BORROWERS --orders BENCH_RETENTION_ORDERS` (default 200,000 and 1,000,000; dropped at the
# end). The overdue job runs first when no reminder was ever queued, so that the outbox is as large as a day's run
# leaves it. The accounts are seeded borrowers with orders, every one closed, marked deleted now (the deletion itself is
# the borrower's request: what it removes at once, the purge removes too); the job runs for the business date their
# retention ends after. Budget: BENCH_RETENTION_BUDGET_MS (default 20) milliseconds per account purged, on each market.
# Writes the figures between <!-- retention:begin --> and <!-- retention:end --> in docs/PERFORMANCE.md; exits 1 when
# the budget is missed. `make bench-retention` runs it after `make build`; `make bench` does not (a seeded book).
#
# Knobs: KILAT_BIN (default target/release/kilat), PG_URL (an admin URL; default
# postgres://postgres@127.0.0.1:5432/postgres), BENCH_DB_URL, BENCH_RETENTION_BORROWERS, BENCH_RETENTION_ORDERS,
# BENCH_RETENTION_ACCOUNTS, BENCH_RETENTION_BUDGET_MS, BENCH_KEEP (1 keeps a fresh database).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DOC=$ROOT/docs/PERFORMANCE.md
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
BORROWERS=${BENCH_RETENTION_BORROWERS:-200000}
ORDERS=${BENCH_RETENTION_ORDERS:-1000000}
ACCOUNTS=${BENCH_RETENTION_ACCOUNTS:-1000}
BUDGET_MS=${BENCH_RETENTION_BUDGET_MS:-20}

log() { printf '\n== %s\n' "$*" >&2; }
die() { echo "bench-retention: $*" >&2; exit 1; }

[ -x "$BIN" ] || die "$BIN is missing: run \`make build\` first (or set KILAT_BIN)"
command -v psql >/dev/null || { log "installing psql"; apt-get install -y -qq postgresql-client >/dev/null; }
psql "$PG_URL" -qc 'SELECT 1' >/dev/null 2>&1 || die "no PostgreSQL at $PG_URL"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
NOTES=()
DB_NAME=""
cleanup() {
  if [ -n "$DB_NAME" ] && [ -z "${BENCH_DB_URL:-}" ]; then
    if [ "${BENCH_KEEP:-0}" = 1 ]; then
      echo "bench-retention: kept the database $DB_NAME" >&2
    else
      psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null 2>&1 || true
    fi
  fi
}
trap cleanup EXIT

if [ -n "${BENCH_DB_URL:-}" ]; then
  URL=$BENCH_DB_URL
  NOTES+=("- The database \`$(psql "$URL" -tAc 'SELECT current_database()')\`, seeded before this run.")
else
  DB_NAME="kilat_bench_retention_$$"
  psql "$PG_URL" -qc "CREATE DATABASE $DB_NAME" >/dev/null
  URL="${PG_URL%/*}/$DB_NAME"
fi
export KILAT_DATABASE_URL=$URL KILAT_MODE=development RUST_LOG=warn

if [ -z "${BENCH_DB_URL:-}" ]; then
  log "kilat dev seed --borrowers $BORROWERS --orders $ORDERS"
  started=$(date +%s)
  "$BIN" dev seed --borrowers "$BORROWERS" --orders "$ORDERS" >&2
  psql "$URL" -qc 'VACUUM ANALYZE' >/dev/null
  NOTES+=("- A fresh database: \`kilat dev seed --borrowers $BORROWERS --orders $ORDERS\` and \`VACUUM ANALYZE\`, $(($(date +%s) - started)) s.")
fi
# Any command of the binary migrates the database first: a read-only one, so that a migration this binary brings (an
# index built over the whole book) is not timed with the job.
"$BIN" contact-messages >/dev/null
if [ "$(psql "$URL" -tAc 'SELECT EXISTS (SELECT 1 FROM notification_outbox)')" = f ]; then
  log "today's overdue job, for its reminders"
  "$BIN" jobs run overdue >&2
fi

# The accounts: seeded borrowers with orders, all closed, drawn from a block sample of the book's pages (so that the
# draw does not read every borrower), in equal parts from both markets.
log "marking $ACCOUNTS accounts deleted"
NOW_MS=$(($(date +%s) * 1000))
marked=$(psql "$URL" -tA <<SQL
WITH drawn AS (
  SELECT b.id, b.market, row_number() OVER (PARTITION BY b.market ORDER BY b.id) AS n
  FROM borrowers b TABLESAMPLE SYSTEM (10)
  WHERE b.deleted_at IS NULL AND b.id LIKE 'sd%'
    AND EXISTS (SELECT 1 FROM orders o WHERE o.borrower_id = b.id)
    AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.borrower_id = b.id AND o.closed_at IS NULL)
)
UPDATE borrowers SET deleted_at = $NOW_MS
WHERE id IN (SELECT id FROM drawn WHERE n <= $ACCOUNTS / 2 + (CASE WHEN market = 'IN' THEN $ACCOUNTS % 2 ELSE 0 END));
SQL
)
marked=${marked##* }
[ "$marked" -gt 0 ] || die "no seeded borrower with only closed orders to delete"
book=$(psql "$URL" -tAF' ' -c "SELECT (SELECT count(*) FROM borrowers), (SELECT count(*) FROM orders),
  (SELECT count(*) FROM payments), (SELECT count(*) FROM ledger_entries), (SELECT count(*) FROM notification_outbox),
  (SELECT count(*) FROM complaints), pg_size_pretty(pg_database_size(current_database()))")
read -r b_count o_count p_count e_count n_count c_count size_pretty <<<"$book"
NOTES+=("- The book: $b_count borrowers, $o_count orders, $p_count payments, $e_count ledger entries, $n_count reminders and receipts in the outbox, $c_count complaints; the database $size_pretty.")
NOTES+=("- $marked accounts marked deleted (borrowers of the seeding whose orders are all closed).")

# The business date whose cutoff is after the deletion (the longer of the markets' retentions, and a day), or the
# first after it the job has not run for (a database of BENCH_DB_URL may have had a run before).
days=$(awk -F' *= *' '/^retention_days/ { if ($2 > m) m = $2 } END { print m + 2 }' "$ROOT/server/src/defaults.toml")
ON=$(date -u -d "+$days days" +%F)
while [ "$(psql "$URL" -tAc "SELECT EXISTS (SELECT 1 FROM job_runs WHERE job = 'records_retention' AND business_date = '$ON')")" = t ]; do
  ON=$(date -u -d "$ON + 1 day" +%F)
done
log "kilat jobs run records-retention --date $ON"
ROWS=()
FAILED=0
for market in IN ID; do
  started=$(date +%s%N)
  said=$("$BIN" jobs run records-retention --market "$market" --date "$ON" 2>&1) || die "the job failed: $said"
  ms=$((($(date +%s%N) - started) / 1000000))
  echo "$said" >&2
  purged=$(grep -o '[0-9]* accounts purged' <<<"$said" | cut -d' ' -f1)
  [ -n "$purged" ] && [ "$purged" -gt 0 ] || die "the job in $market purged nothing: $said"
  per=$(awk -v ms="$ms" -v n="$purged" 'BEGIN { printf "%.1f", ms / n }')
  verdict=PASS
  awk -v p="$per" -v b="$BUDGET_MS" 'BEGIN { exit !(p > b) }' && { verdict=FAIL; FAILED=1; }
  ROWS+=("| $market | $purged | $(awk -v ms="$ms" 'BEGIN { printf "%.2f", ms / 1000 }') s | $per ms | $verdict | $(grep -o '([^)]*)' <<<"$said" | head -1) |")
done

SECTION=$(mktemp)
{
  echo '<!-- retention:begin -->'
  echo "## Removing accounts at scale (issue 20; scripts/bench-retention.sh)"
  echo
  echo "Written by \`scripts/bench-retention.sh\` (\`make bench-retention\`) on $(date -u '+%Y-%m-%dT%H:%MZ'), commit \`$(git -C "$ROOT" rev-parse --short HEAD)\`$(git -C "$ROOT" diff --quiet HEAD -- server crates || echo ' (with uncommitted changes to the code)')."
  echo "Machine: $(nproc) cores ($(uname -m)); PostgreSQL $(psql "$PG_URL" -tAc 'SHOW server_version' | cut -d' ' -f1) on the same machine."
  echo "Load average (1, 5, 15 min) when the script started: $LOAD_BEFORE; when it wrote this: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  printf '%s\n' "${NOTES[@]}"
  echo
  echo "The records-retention job (\`kilat jobs run records-retention --date $ON\`), one market at a time; pages of 200 accounts, a transaction each; the time is the command's, its start included. Budget: $BUDGET_MS ms per account."
  echo
  echo '| Market | Accounts purged | Time | Per account | Budget | What went with them |'
  echo '|---|---:|---:|---:|---|---|'
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "Command: \`scripts/bench-retention.sh\`$( [ -n "${BENCH_DB_URL:-}" ] && echo ' with BENCH_DB_URL')."
  echo '<!-- retention:end -->'
} >"$SECTION"
if grep -q '<!-- retention:begin -->' "$DOC"; then
  awk -v f="$SECTION" '
    /<!-- retention:begin -->/ { while ((getline line < f) > 0) print line; skip = 1; next }
    /<!-- retention:end -->/ { skip = 0; next }
    !skip { print }
  ' "$DOC" >"$SECTION.doc" && cat "$SECTION.doc" >"$DOC"
else
  { echo; cat "$SECTION"; } >>"$DOC"
fi
rm -f "$SECTION" "$SECTION.doc"
log "wrote docs/PERFORMANCE.md (retention section)"
exit "$FAILED"
