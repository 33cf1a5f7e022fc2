#!/usr/bin/env bash
# The console's audit search over a long trail (docs/PERFORMANCE.md, "The audit search at scale"):
#   - a fresh database per run: `kilat dev seed` (BENCH_AUDIT_BORROWERS, default 20,000; BENCH_AUDIT_ORDERS, default
#     60,000), then BENCH_AUDIT_ENTRIES audit entries (default 5,000,000) over a year, in the mix a book's trail has:
#     62 % `view_unmasked` (finance's payout list and the reviewers' order views), the rest order, payout, payment,
#     collections and complaint actions, and 0.1 % `product.edit`; 40 operators; each on one of the
#     seeded orders. Inserted by SQL (psql on PostgreSQL, Python's sqlite3 on SQLite), then ANALYZE;
#   - an admin (both markets) and a support operator of Indonesia only, signed in through `POST /console/login`;
#   - each search shape below asked 9 times in turn with curl, one at a time, the first not counted: the median and
#     the slowest of the other 8. Every shape for BASELINE_BIN when given, then for kilat (KILAT_BIN), in alternating
#     rounds (BENCH_ROUNDS, default 2) on the same database.
# Writes the figures between <!-- audit:begin --> and <!-- audit:end --> in docs/PERFORMANCE.md. `make bench-audit`.
#
# Knobs: KILAT_BIN (default target/release/kilat), BASELINE_BIN (an older build to compare with: it runs on the schema
# KILAT_BIN migrated; BASELINE_NAME names it in the doc), PG_URL (admin URL; default
# postgres://postgres@127.0.0.1:5432/postgres), BENCH_DATABASES (default "postgres sqlite"), BENCH_AUDIT_ENTRIES,
# BENCH_AUDIT_ORDERS, BENCH_AUDIT_BORROWERS, BENCH_ROUNDS, BENCH_KEEP (1 keeps the scratch folder and the PostgreSQL
# database).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
BASELINE=${BASELINE_BIN:-}
BASELINE_NAME=${BASELINE_NAME:-$BASELINE}
DOC=$ROOT/docs/PERFORMANCE.md
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
DATABASES=${BENCH_DATABASES:-postgres sqlite}
ENTRIES=${BENCH_AUDIT_ENTRIES:-5000000}
ORDERS=${BENCH_AUDIT_ORDERS:-60000}
BORROWERS=${BENCH_AUDIT_BORROWERS:-20000}
ROUNDS=${BENCH_ROUNDS:-2}
PASSWORD=bench-audit-password-1

die() { printf 'bench-audit: %s\n' "$*" >&2; exit 2; }
log() { printf '\n== %s\n' "$*" >&2; }
[ -x "$BIN" ] || die "no binary at $BIN (make build, or set KILAT_BIN)"
[ -z "$BASELINE" ] || [ -x "$BASELINE" ] || die "no binary at BASELINE_BIN=$BASELINE"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-bench-audit.XXXXXX")
PID=
PG_DB=
cleanup() {
  [ -z "$PID" ] || { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true; }
  if [ "${BENCH_KEEP:-0}" = 1 ]; then
    echo "bench-audit: kept $WORK ${PG_DB:+and $PG_DB}" >&2
  else
    [ -z "$PG_DB" ] || psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

# The trail's mix of actions, by g.
ACTION_CASE="CASE WHEN g % 100 < 62 THEN 'view_unmasked' WHEN g % 100 < 70 THEN 'order.claim'
  WHEN g % 100 < 76 THEN 'order.approve' WHEN g % 100 < 78 THEN 'order.reject' WHEN g % 100 < 84 THEN 'payout.record'
  WHEN g % 100 < 86 THEN 'payout.approve' WHEN g % 100 < 93 THEN 'payment.utr' WHEN g % 100 < 97 THEN 'collections.contact'
  WHEN g % 100 < 99 THEN 'complaint.reply' WHEN g % 1000 < 995 THEN 'complaint.close' ELSE 'product.edit' END"
# One year of entries, oldest first, each on one of the seeded orders and by one of 40 operators.
fill_sql() { # FROM: the clause that yields g (1..ENTRIES) and o.id
  cat <<SQL
INSERT INTO audit_log (id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at)
SELECT 'bench-' || g, 'operator', 'op-' || (g % 40), $ACTION_CASE, 'order', o.id, NULL,
       '{"field":"bank_account"}', 1764979200000 + g * 6307
$1;
SQL
}

fill_postgres() { # url
  psql "$1" -q -v ON_ERROR_STOP=1 <<SQL
CREATE TEMP TABLE bench_orders AS SELECT row_number() OVER (ORDER BY id) - 1 AS n, id FROM orders;
CREATE INDEX ON bench_orders (n);
ANALYZE bench_orders;
$(fill_sql "FROM generate_series(1::bigint, $ENTRIES::bigint) g JOIN bench_orders o ON o.n = (g * 7919) % $ORDERS")
ANALYZE audit_log;
SQL
}

fill_sqlite() { # path
  python3 - "$1" "$ENTRIES" "$ORDERS" "$(fill_sql "FROM (WITH RECURSIVE n(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM n WHERE g < ?) SELECT g FROM n) JOIN bench_orders o ON o.n = (g * 7919) % ?")" <<'PY'
import sqlite3, sys
path, entries, orders, insert = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
db = sqlite3.connect(path)
db.execute("CREATE TEMP TABLE bench_orders AS SELECT row_number() OVER (ORDER BY id) - 1 AS n, id FROM orders")
db.execute("CREATE INDEX temp.bench_orders_n ON bench_orders (n)")
db.execute(insert.rstrip().rstrip(';'), (entries, orders))
db.execute("ANALYZE audit_log")
db.commit()
PY
}

ROWS=()
NOTES=()
probe() { # db label bin url order
  local db=$1 label=$2 bin=$3 url=$4 order=$5 port base adm sup
  port=$(free_port)
  base=http://127.0.0.1:$port
  KILAT_DATABASE_URL=$url KILAT_MODE=development RUST_LOG=warn KILAT_LISTEN=127.0.0.1:$port \
    "$bin" serve --jobs off >"$WORK/$db-$label.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 600); do curl -fsS -o /dev/null "$base/readyz" 2>/dev/null && break; sleep 0.1; done
  curl -fsS -o /dev/null "$base/readyz" || die "$db: $label did not start (see $WORK/$db-$label.log)"
  login() {
    curl -fsS -D - -o /dev/null -H 'content-type: application/json' \
      -d "{\"username\":\"$1\",\"password\":\"$PASSWORD\"}" "$base/api/v1/console/login" |
      sed -n 's/^[Ss]et-[Cc]ookie: kilat_console=\([^;]*\).*/\1/p'
  }
  adm=$(login bench-admin)
  sup=$(login bench-support)
  [ -n "$adm" ] && [ -n "$sup" ] || die "$db: the bench operators could not sign in"
  shape() { # cookie name query
    local cookie=$1 name=$2 query=$3 times=() out status i rows
    for i in $(seq 1 9); do
      out=$(curl -sS -o "$WORK/answer.json" -w '%{http_code} %{time_total}' -H "Cookie: kilat_console=$cookie" \
        "$base/api/v1/console/audit?$query")
      status=${out%% *}
      [ "$status" = 200 ] || die "$db: $name answered $status: $(head -c 300 "$WORK/answer.json")"
      [ "$i" = 1 ] || times+=("${out##* }")
    done
    rows=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).data.entries.length)' "$WORK/answer.json")
    read -r median slowest < <(printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 * 1000 } END { printf "%.1f %.1f\n", (t[4] + t[5]) / 2, t[NR] }')
    ROWS+=("| $db | $label | $name | $rows | $median | $slowest |")
  }
  shape "$adm" "admin, no filter" ""
  shape "$adm" "admin, one order" "orderNo=$order"
  shape "$adm" "admin, one operator" "operator=op-7"
  shape "$adm" "admin, action \`order.approve\`" "action=order.approve"
  shape "$adm" "admin, action \`product.edit\` (0.1 %)" "action=product.edit"
  shape "$adm" "admin, family \`complaint.\` (3 %)" "action=complaint."
  shape "$adm" "admin, family \`product.\` (0.1 %)" "action=product."
  shape "$adm" "admin, family \`audit.\` (none)" "action=audit."
  shape "$adm" "admin, a week" "from=1775000000000&to=1775600000000"
  shape "$adm" "admin, one operator and family \`payout.\` (none of theirs)" "operator=op-7&action=payout."
  shape "$sup" "Indonesia's support, no filter" ""
  shape "$sup" "Indonesia's support, family \`product.\`" "action=product."
  shape "$sup" "Indonesia's support, one operator" "operator=op-7"
  kill "$PID"
  wait "$PID" 2>/dev/null || true
  PID=
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for db in $DATABASES; do
  case $db in
    postgres)
      PG_DB=kilat_bench_audit_$$
      psql "$PG_URL" -qc "CREATE DATABASE $PG_DB" >/dev/null
      url=${PG_URL%/*}/$PG_DB
      name=PostgreSQL
      ;;
    sqlite)
      url=sqlite://$WORK/audit.db
      name=SQLite
      ;;
    *) die "unknown database $db" ;;
  esac
  log "$db: kilat dev seed --borrowers $BORROWERS --orders $ORDERS, then $ENTRIES audit entries"
  KILAT_DATABASE_URL=$url KILAT_MODE=development RUST_LOG=error "$BIN" dev seed --borrowers "$BORROWERS" --orders "$ORDERS" >&2
  for who in "bench-admin admin IN,ID" "bench-support support ID"; do
    set -- $who
    KILAT_DATABASE_URL=$url KILAT_MODE=development RUST_LOG=error KILAT_OPERATOR_PASSWORD=$PASSWORD \
      "$BIN" operator create --username "$1" --role "$2" --markets "$3" >&2
  done
  started=$(date +%s)
  if [ "$db" = postgres ]; then fill_postgres "$url"; else fill_sqlite "$WORK/audit.db"; fi
  NOTES+=("- $name: $(printf "%'d" "$ENTRIES") entries inserted and analysed in $(( $(date +%s) - started )) s.")
  if [ "$db" = postgres ]; then
    order=$(psql "$url" -Atc "SELECT o.order_no FROM audit_log a JOIN orders o ON o.id = a.entity_id WHERE a.id = 'bench-43363'")
  else
    order=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT o.order_no FROM audit_log a JOIN orders o ON o.id = a.entity_id WHERE a.id = 'bench-43363'\").fetchone()[0])" "$WORK/audit.db")
  fi
  for round in $(seq 1 "$ROUNDS"); do
    [ -z "$BASELINE" ] || probe "$name" "baseline, round $round" "$BASELINE" "$url" "$order"
    probe "$name" "kilat, round $round" "$BIN" "$url" "$order"
  done
  if [ "$db" = postgres ]; then
    psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" >/dev/null
    PG_DB=
  fi
done

SECTION=$WORK/section.md
{
  echo '<!-- audit:begin -->'
  echo "### The audit search at scale (scripts/bench-audit.sh)"
  echo
  echo "Written by \`scripts/bench-audit.sh\` (\`make bench-audit\`) on $(date -u '+%Y-%m-%dT%H:%MZ'), commit \`$(git -C "$ROOT" rev-parse --short HEAD)\`${BASELINE:+, against the baseline \`$BASELINE_NAME\`}."
  echo "Machine: $(nproc) cores ($(uname -m)); load average (1, 5, 15 min) when the script started: $LOAD_BEFORE; when it wrote this: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "$(printf "%'d" "$ENTRIES") audit entries over a year on $(printf "%'d" "$ORDERS") seeded orders; each search 9 times in turn, one at a time (curl), the first not counted."
  echo
  echo '| Database | Binary | Search | Entries answered | Median ms | Slowest ms |'
  echo '|---|---|---|---:|---:|---:|'
  printf '%s\n' "${ROWS[@]}"
  echo
  printf '%s\n' "${NOTES[@]}"
  echo '<!-- audit:end -->'
} >"$SECTION"

python3 - "$DOC" "$SECTION" <<'PY'
import re, sys
doc, section = sys.argv[1], open(sys.argv[2]).read().rstrip('\n')
text = open(doc).read()
pattern = re.compile(r'<!-- audit:begin -->.*?<!-- audit:end -->', re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip('\n') + '\n\n' + section + '\n'
open(doc, 'w').write(text)
PY
cat "$SECTION"
