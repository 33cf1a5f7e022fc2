#!/usr/bin/env bash
# Repayments credited per second through signed payment callbacks (issues 8 and 20): 100 disbursed Indonesian orders,
# each with a `due` payment, credited by 100 signed Xendit virtual-account callbacks (POST
# /api/v1/webhooks/xendit/va-paid) sent at once, each verified, recorded under its unique event id and posted through
# the money engine; on SQLite (a fresh file) and on PostgreSQL (a fresh database on 127.0.0.1:5432, dropped at the
# end; skipped with a message when the server is unreachable). Each database runs ROUNDS alternating rounds of two
# settings of the same binary: `[payments] callback_batch = 1` (each callback in a transaction of its own, as before
# issue 20's batches: the reference) and the default (callbacks that arrive together credited in batches). The
# measurement is the ignored API test `webhooks::bench_signed_callbacks_credit_100_orders_in_parallel`
# (server/tests/api/webhooks.rs), which also checks that each callback credited its payment exactly once. Budget
# (issue 20): PostgreSQL's median with batches >= 2,000 credited per second. Writes the figures, the machine, the load
# and the commands between <!-- callbacks:begin --> and <!-- callbacks:end --> in docs/PERFORMANCE.md.
# `make bench` runs it; `make test` does not.
#
# Knobs: PG_URL (an admin URL of the PostgreSQL server; default postgres://postgres@127.0.0.1:5432/postgres),
# BENCH_DATABASES (default "sqlite postgres"), BENCH_CALLBACK_ORDERS (default 100), BENCH_CALLBACK_ROUNDS (default 5),
# BENCH_CALLBACK_BUDGET (default 2000), BENCH_CARGO_PROFILE (the cargo profile of the test binary; default release,
# `test` for a quick unoptimised run), BENCH_SETTLE_LOAD and BENCH_SETTLE_SECONDS (below). BENCH_CALLBACK_WARMUP (default
# 0), read by the test itself: that many other callbacks credited before the timed burst (a server that has been
# crediting, its statements prepared); the budget is checked on the first burst, without it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DOC=$ROOT/docs/PERFORMANCE.md
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
DATABASES=${BENCH_DATABASES:-sqlite postgres}
ORDERS=${BENCH_CALLBACK_ORDERS:-100}
ROUNDS=${BENCH_CALLBACK_ROUNDS:-5}
BUDGET=${BENCH_CALLBACK_BUDGET:-2000}
PROFILE=${BENCH_CARGO_PROFILE:-release}
TEST=webhooks::bench_signed_callbacks_credit_100_orders_in_parallel

log() { printf '\n== %s\n' "$*" >&2; }
pg_port_open() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# Build the test binary once, before any round, so no round pays for it.
(cd "$ROOT" && cargo nextest run --cargo-profile "$PROFILE" -p kilat-server --test api --no-run >&2)

# A burst of 100 callbacks lasts about 50 ms, so what the machine still does after the step before (in `make bench`,
# the borrower benchmark's PostgreSQL writing its WAL out, its database's files unlinked) weighs on every round: write
# PostgreSQL's WAL out, then wait until the one-minute load average is under SETTLE_LOAD (default 1.0), at most
# SETTLE_SECONDS (default 120). What it waited and the load at the start are printed in the section.
SETTLE_LOAD=${BENCH_SETTLE_LOAD:-1.0}
SETTLE_SECONDS=${BENCH_SETTLE_SECONDS:-120}
if pg_port_open; then psql "$PG_URL" -qc 'CHECKPOINT' >/dev/null 2>&1 || true; fi
settle_started=$(date +%s)
while ! awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$SETTLE_LOAD" 'BEGIN {exit !(l < m)}' \
  && [ $(($(date +%s) - settle_started)) -lt "$SETTLE_SECONDS" ]; do
  sleep 5
done
settled=$(($(date +%s) - settle_started))
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
log "waited ${settled} s for the load average to fall under $SETTLE_LOAD (now $load_start)"

rows=()
verdicts=()
status=0
for db in $DATABASES; do
  env_args=(BENCH_CALLBACK_ORDERS="$ORDERS")
  name=SQLite
  if [ "$db" = postgres ]; then
    name=PostgreSQL
    if ! pg_port_open; then
      log "PostgreSQL does not answer on 127.0.0.1:5432: skipped"
      rows+=("| PostgreSQL | skipped: no server on 127.0.0.1:5432 | | | |")
      continue
    fi
    env_args+=(TEST_DATABASE_URL="$PG_URL")
  fi
  declare -A rates=([one]="" [batched]="")
  failed=0
  for round in $(seq 1 "$ROUNDS"); do
    for mode in one batched; do
      batch_args=()
      [ "$mode" = one ] && batch_args=(BENCH_CALLBACK_BATCH=1)
      log "$db, round $round, $mode: $ORDERS signed callbacks at once ($PROFILE build)"
      out=$(cd "$ROOT" && env "${env_args[@]}" "${batch_args[@]}" cargo nextest run --cargo-profile "$PROFILE" \
        -p kilat-server --test api --run-ignored only --no-capture "$TEST" 2>&1) || { printf '%s\n' "$out" >&2; failed=1; }
      line=$(printf '%s\n' "$out" | grep -o 'BENCH_CALLBACKS .*' | tail -1 || true)
      if [ -z "$line" ]; then
        failed=1
        continue
      fi
      echo "$line" >&2
      rate=$(printf '%s\n' "$line" | tr ' ' '\n' | sed -n 's/^per_second=//p')
      rates[$mode]="${rates[$mode]} $rate"
    done
  done
  if [ "$failed" = 1 ]; then
    rows+=("| $name | failed: see the script's output | | | |")
    status=1
    continue
  fi
  one=$(printf '%s' "${rates[one]}" | median)
  batched=$(printf '%s' "${rates[batched]}" | median)
  ratio=$(awk -v a="$batched" -v b="$one" 'BEGIN {printf "%.2f", a / b}')
  rows+=("| $name | ${rates[one]# } | **$one** | ${rates[batched]# } | **$batched** | ${ratio}× |")
  if [ "$db" = postgres ]; then
    if awk -v r="$batched" -v b="$BUDGET" 'BEGIN {exit !(r >= b)}'; then
      verdicts+=("PostgreSQL with batches: $batched credited per second, budget >= $BUDGET: **PASS**.")
    else
      verdicts+=("PostgreSQL with batches: $batched credited per second, budget >= $BUDGET: **FAIL**.")
      status=1
    fi
  fi
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(cd "$ROOT" && git rev-parse --short HEAD)

section=$(mktemp)
{
  echo "<!-- callbacks:begin -->"
  echo "## Repayments credited through signed callbacks (scripts/bench-callbacks.sh)"
  echo
  echo "$ORDERS disbursed Indonesian orders, each with a \`due\` payment, credited by $ORDERS signed Xendit"
  echo "virtual-account callbacks sent at once (each verified, recorded under its unique event id, posted through the"
  echo "money engine and the order moved); every payment checked credited exactly once afterwards. $ROUNDS alternating"
  echo "rounds per database of the same binary: each callback in a transaction of its own (\`callback_batch = 1\`, the"
  echo "reference: how every callback was credited before issue 20's batches) and the default, callbacks that arrive"
  echo "together credited in batches (docs/API-WEBHOOKS.md, step 6)."
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') at \`$commit\` on $(nproc) cores ($(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "load average $load_start at the start (after waiting ${settled} s for the one-minute figure to fall under"
  echo "$SETTLE_LOAD) and $load at the end; the test binary built with the \`$PROFILE\` cargo profile, in-process server"
  echo "and client (the client shares the cores)."
  echo
  echo "| Database | One at a time, rounds (/s) | Median | In batches, rounds (/s) | Median | Batches ÷ one at a time |"
  echo "|---|---|---:|---|---:|---:|"
  printf '%s\n' "${rows[@]}"
  echo
  for v in "${verdicts[@]}"; do echo "$v"; done
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
