#!/usr/bin/env bash
# Repayments credited per second through signed payment callbacks (issue 8): 100 disbursed Indonesian orders, each with
# a `due` payment, credited by 100 signed Xendit virtual-account callbacks (POST /api/v1/webhooks/xendit/va-paid) sent
# at once, each verified, recorded under its unique event id and posted through the money engine in one transaction;
# on SQLite (a fresh file) and on PostgreSQL (a fresh database on 127.0.0.1:5432, dropped at the end; skipped with a
# message when the server is unreachable). The measurement is the ignored API test
# `webhooks::bench_signed_callbacks_credit_100_orders_in_parallel` (server/tests/api/webhooks.rs), which also checks
# that each callback credited its payment exactly once. Writes the figures, the machine and the commands between
# <!-- callbacks:begin --> and <!-- callbacks:end --> in docs/PERFORMANCE.md.
# `make bench` runs it; `make test` does not.
#
# Knobs: PG_URL (an admin URL of the PostgreSQL server; default postgres://postgres@127.0.0.1:5432/postgres),
# BENCH_DATABASES (default "sqlite postgres"), BENCH_CALLBACK_ORDERS (default 100), BENCH_CARGO_PROFILE (the cargo
# profile of the test binary; default release, `test` for a quick unoptimised run).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DOC=$ROOT/docs/PERFORMANCE.md
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
DATABASES=${BENCH_DATABASES:-sqlite postgres}
ORDERS=${BENCH_CALLBACK_ORDERS:-100}
PROFILE=${BENCH_CARGO_PROFILE:-release}
TEST=webhooks::bench_signed_callbacks_credit_100_orders_in_parallel

log() { printf '\n== %s\n' "$*" >&2; }
pg_port_open() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }

rows=()
status=0
for db in $DATABASES; do
  env_args=(BENCH_CALLBACK_ORDERS="$ORDERS")
  if [ "$db" = postgres ]; then
    if ! pg_port_open; then
      log "PostgreSQL does not answer on 127.0.0.1:5432: skipped"
      rows+=("| PostgreSQL | skipped: no server on 127.0.0.1:5432 | | |")
      continue
    fi
    env_args+=(TEST_DATABASE_URL="$PG_URL")
  fi
  log "$db: $ORDERS signed callbacks at once ($PROFILE build)"
  out=$(cd "$ROOT" && env "${env_args[@]}" cargo nextest run --cargo-profile "$PROFILE" -p kilat-server --test api \
    --run-ignored only --no-capture "$TEST" 2>&1) || { printf '%s\n' "$out" >&2; status=1; }
  line=$(printf '%s\n' "$out" | grep -o 'BENCH_CALLBACKS .*' | tail -1 || true)
  if [ -z "$line" ]; then
    rows+=("| $db | failed: see the script's output | | |")
    status=1
    continue
  fi
  echo "$line" >&2
  get() { printf '%s\n' "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
  name=SQLite; [ "$db" = postgres ] && name=PostgreSQL
  rows+=("| $name | $(get orders) | $(get seconds) | **$(get per_second)** |")
done

section=$(mktemp)
{
  echo "<!-- callbacks:begin -->"
  echo "## Repayments credited through signed callbacks (scripts/bench-callbacks.sh)"
  echo
  echo "$ORDERS disbursed Indonesian orders, each with a \`due\` payment, credited by $ORDERS signed Xendit"
  echo "virtual-account callbacks sent at once (each verified, recorded under its unique event id, posted through the"
  echo "money engine and the order moved, in one transaction); every payment checked credited exactly once afterwards."
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(uname -m)), the test binary built with the"
  echo "\`$PROFILE\` cargo profile, in-process server and client (the client shares the cores)."
  echo
  echo "| Database | Callbacks | Seconds | Credited per second |"
  echo "|---|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Command: \`BENCH_CARGO_PROFILE=$PROFILE scripts/bench-callbacks.sh\` (\`make bench\`)."
  echo "<!-- callbacks:end -->"
} >"$section"

python3 - "$DOC" "$section" <<'PY'
import re, sys
doc, section = sys.argv[1], open(sys.argv[2]).read().rstrip("\n")
text = open(doc).read()
pattern = re.compile(r"<!-- callbacks:begin -->.*?<!-- callbacks:end -->", re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section + "\n"
open(doc, "w").write(text)
PY
rm -f "$section"
log "wrote the callbacks section of docs/PERFORMANCE.md"
exit $status
