#!/usr/bin/env bash
# Where one burst of signed callbacks spends PostgreSQL's time (issue 20; docs/PERFORMANCE.md, "Repayments credited
# through signed callbacks"): runs the callbacks benchmark's test once on PostgreSQL with every statement logged
# (`log_min_duration_statement = 0`, set with ALTER SYSTEM for the run and reset after it, also when interrupted) and
# a quiet pause before and after the timed burst (the test's BENCH_CALLBACK_PAUSE_MS), then reads the burst alone
# out of the server's log:
#   - each batch's transaction, by backend: when it began and ended, in milliseconds from the start of the stretch of
#     log that holds the burst, and the time its statements took in PostgreSQL;
#   - parse, bind (where a prepared statement's plan is made) and execute summed over the burst;
#   - the statements that took the most, each with its parse, bind and execute.
#
#   scripts/bench/callbacks-statements.sh [NAME=VALUE ...]      (settings for the test, e.g. BENCH_CALLBACK_BATCH=1)
#
# Knobs: PG_URL (admin URL; default postgres://postgres@127.0.0.1:5432/postgres), PG_LOG (the server's log file;
# default the newest /var/log/postgresql/postgresql-*-main.log; its lines begin as Debian's default `log_line_prefix`
# writes them, `%m [%p]`), BENCH_CARGO_PROFILE (default release), TOP (statements
# listed; default 12). Logging every statement slows the burst itself, so its rate is not a benchmark figure:
# scripts/bench-callbacks.sh is.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
PROFILE=${BENCH_CARGO_PROFILE:-release}
TOP=${TOP:-12}
PG_LOG=${PG_LOG:-$(ls -t /var/log/postgresql/postgresql-*-main.log 2>/dev/null | head -1 || true)}
TEST=webhooks::bench_signed_callbacks_credit_100_orders_in_parallel

[ -n "$PG_LOG" ] && [ -r "$PG_LOG" ] || { echo "callbacks-statements: no readable PostgreSQL log (PG_LOG)" >&2; exit 2; }

(cd "$ROOT" && cargo nextest run --cargo-profile "$PROFILE" -p kilat-server --test api --no-run >&2)

logging() { psql "$PG_URL" -qc "ALTER SYSTEM $1" -c 'SELECT pg_reload_conf()' >/dev/null; }
trap 'logging "RESET log_min_duration_statement"' EXIT
logging "SET log_min_duration_statement = 0"
start=$(($(wc -l <"$PG_LOG") + 1))
out=$(cd "$ROOT" && env TEST_DATABASE_URL="$PG_URL" BENCH_CALLBACK_PAUSE_MS=1500 "$@" cargo nextest run \
  --cargo-profile "$PROFILE" -p kilat-server --test api --run-ignored only --no-capture "$TEST" 2>&1) \
  || { printf '%s\n' "$out" >&2; exit 1; }
logging "RESET log_min_duration_statement"
sleep 1 # the log's last lines written out
printf '%s\n' "$out" | grep -o 'BENCH_CALLBACKS .*' || true

slice=$(mktemp)
trap 'rm -f "$slice"' EXIT
tail -n +"$start" "$PG_LOG" >"$slice"
python3 - "$TOP" "$slice" <<'PY'
import collections, datetime, re, sys

top = int(sys.argv[1])
text = open(sys.argv[2]).read()
entries = re.split(r"\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", text)
stamp = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) \S+ \[(\d+)\]")
logged = re.compile(r"duration: ([\d.]+) ms  (parse|bind|execute|statement)[^:]*: (.*)", re.S)

rows = []
for e in entries:
    m = stamp.match(e)
    if not m:
        continue
    at = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f")
    d = logged.search(e)
    rows.append((at, m.group(2), d))

# The burst: the stretch of the log between two quiet moments (0.3 s or more without a line: the test's pauses, which
# the server's own background reads may cut in two) that records the callbacks' events.
cuts = [0] + [i for i in range(1, len(rows)) if (rows[i][0] - rows[i - 1][0]).total_seconds() >= 0.3] + [len(rows)]
stretches = [rows[a:b] for a, b in zip(cuts, cuts[1:])]
burst = [r for r in max(stretches, key=lambda s: sum(
    1 for _, _, d in s if d and "INSERT INTO payment_callbacks" in d.group(3))) if r[2]]
if not any("INSERT INTO payment_callbacks" in d.group(3) for _, _, d in burst):
    sys.exit("callbacks-statements: no callback was recorded in the log")
t0 = burst[0][0]

open_tx, kinds, per_statement = {}, collections.Counter(), collections.defaultdict(collections.Counter)
print("batches (ms from the start of the logged stretch):")
for at, pid, d in burst:
    ms, kind, sql = float(d.group(1)), d.group(2), d.group(3)
    sql = re.split(r"\n\s*DETAIL:", sql)[0]
    kinds[kind] += ms
    per_statement[" ".join(sql.split())[:90]][kind] += ms
    rel = (at - t0).total_seconds() * 1000
    if sql.startswith("BEGIN"):
        open_tx[pid] = [rel, 0.0, 0]
    if pid in open_tx:
        open_tx[pid][1] += ms
        open_tx[pid][2] += kind in ("execute", "statement")
        if sql.startswith("COMMIT"):
            began, spent, statements = open_tx.pop(pid)
            print(f"  backend {pid}: {began:6.1f} to {rel:6.1f} ({rel - began:5.1f} ms), "
                  f"{spent:5.1f} ms in PostgreSQL, {statements} statements")
print("over the burst (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(kinds.items()))
      + f"; in all {sum(kinds.values()):.1f}")
print(f"the {top} statements that took the most (ms: all, parse, bind, execute):")
for sql, k in sorted(per_statement.items(), key=lambda kv: -sum(kv[1].values()))[:top]:
    print(f"  {sum(k.values()):6.2f} {k['parse']:5.2f} {k['bind']:5.2f} {k['execute'] + k['statement']:5.2f}  {sql}")
PY
