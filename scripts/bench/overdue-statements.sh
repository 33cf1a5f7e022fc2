#!/usr/bin/env bash
# Where the overdue job's first day spends its time on PostgreSQL (issue 20; docs/PERFORMANCE.md, "The overdue job"):
# seeds a fresh database as scripts/bench-overdue.sh does (`kilat dev seed-loans`, then ANALYZE), runs the job for
# the day the first installment is 4 days late with every statement logged (`log_min_duration_statement = 0`, set with
# ALTER SYSTEM for the run and reset after it, also when interrupted), and reads the run out of the server's log:
#   - the job's wall time and the kilat process's CPU time (user and system, from /usr/bin/time);
#   - parse, bind and execute summed over the run, and the statements that took the most, each with its count.
# Logging every statement slows the run, so its time is not a benchmark figure: scripts/bench-overdue.sh is.
#
#   scripts/bench/overdue-statements.sh
#
# Knobs: KILAT_BIN (default target/release/kilat), PG_URL (admin URL; default
# postgres://postgres@127.0.0.1:5432/postgres), LOANS (default 16666: 100,000 open installments), DAY (default
# 2026-02-05; 2026-02-06 after it is the day with nothing new due, run with BOTH=1), PG_LOG (the server's log file;
# default the newest /var/log/postgresql/postgresql-*-main.log, lines beginning `%m [%p]` as Debian writes them),
# TOP (statements listed; default 15).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
LOANS=${LOANS:-16666}
TOP=${TOP:-15}
PG_LOG=${PG_LOG:-$(ls -t /var/log/postgresql/postgresql-*-main.log 2>/dev/null | head -1 || true)}

die() { printf 'overdue-statements: %s\n' "$*" >&2; exit 2; }
[ -x "$BIN" ] || die "no binary at $BIN (make build, or set KILAT_BIN)"
[ -x /usr/bin/time ] || die "no /usr/bin/time (apt-get install time)"
[ -n "$PG_LOG" ] && [ -r "$PG_LOG" ] || die "no readable PostgreSQL log (PG_LOG)"

NAME=kilat_overdue_statements_$$
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-overdue-statements.XXXXXX")
logging() { psql "$PG_URL" -qc "ALTER SYSTEM $1" -c 'SELECT pg_reload_conf()' >/dev/null; }
cleanup() {
  logging "RESET log_min_duration_statement" || true
  psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $NAME" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

export KILAT_MODE=development KILAT_LOG__FORMAT=json RUST_LOG=warn KILAT_DATABASE_URL=${PG_URL%/*}/$NAME
psql "$PG_URL" -qc "CREATE DATABASE $NAME" >/dev/null
"$BIN" dev seed-loans --market IN --product in-flexi-6m --amount 2000000 --term m6 --payout 2026-01-01 \
  --loans "$LOANS" >&2
psql "$KILAT_DATABASE_URL" -qc 'ANALYZE'

job() { # date
  local start
  logging "SET log_min_duration_statement = 0"
  start=$(($(wc -l <"$PG_LOG") + 1))
  /usr/bin/time -f 'kilat process: %e s wall, %U s user, %S s system, %M KB peak' \
    "$BIN" jobs run overdue --market IN --date "$1" 2>"$WORK/time"
  logging "RESET log_min_duration_statement"
  sleep 1 # the log's last lines written out
  tail -1 "$WORK/time"
  tail -n +"$start" "$PG_LOG" >"$WORK/slice"
  python3 - "$TOP" "$WORK/slice" <<'PY'
import collections, re, sys

top = int(sys.argv[1])
text = open(sys.argv[2]).read()
entries = re.split(r"\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", text)
logged = re.compile(r"duration: ([\d.]+) ms  (parse|bind|execute|statement)[^:]*: (.*)", re.S)
kinds = collections.Counter()
per = collections.defaultdict(collections.Counter)
runs = collections.Counter()
for e in entries:
    d = logged.search(e)
    if not d:
        continue
    ms, kind, sql = float(d.group(1)), d.group(2), re.split(r"\n\s*DETAIL:", d.group(3))[0]
    key = " ".join(sql.split())[:100]
    kinds[kind] += ms
    per[key][kind] += ms
    runs[key] += kind in ("execute", "statement")
print("PostgreSQL over the run (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(kinds.items()))
      + f"; in all {sum(kinds.values()):.0f}")
print(f"the {top} statements that took the most (ms: all, parse, bind, execute; runs):")
for sql, k in sorted(per.items(), key=lambda kv: -sum(kv[1].values()))[:top]:
    print(f"  {sum(k.values()):7.1f} {k['parse']:6.1f} {k['bind']:6.1f} {k['execute'] + k['statement']:7.1f} "
          f"{runs[sql]:5d}  {sql}")
PY
}

job "${DAY:-2026-02-05}"
[ "${BOTH:-0}" = 1 ] && job 2026-02-06
exit 0
