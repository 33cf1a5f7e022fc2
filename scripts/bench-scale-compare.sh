#!/usr/bin/env bash
# Two kilat binaries on the borrower reads of a book `make bench-scale` seeded and kept, in one run: the servers take
# turns (baseline, this, baseline, this, …), each answering `wrk -t2 -c$BENCH_CONNECTIONS` (2 s of warm-up, then
# WRK_DURATION) on the plan, the repayment choices, the payment methods and home, as the sampled borrowers of that run,
# so that the machine's load falls on both alike. Prints one markdown row per round, binary and read, with the load
# average; docs/PERFORMANCE.md quotes it where a change is measured ("The loan's pages batched").
#
# Usage: BENCH_SCALE_WORK=/tmp/kilat-bench-scale.XXXXXX BENCH_DB_URL=postgres://…/kilat_bench_scale_N \
#          scripts/bench-scale-compare.sh BASELINE_BIN [BIN]
#   BENCH_SCALE_WORK is the scratch folder of a `BENCH_KEEP=1 make bench-scale` run (its calls/*.txt name the sessions
#   and their orders), BENCH_DB_URL that run's database; BIN defaults to target/release/kilat. Build the baseline from
#   an earlier commit with `git worktree` and `cargo build --release --bin kilat`.
# Knobs: BENCH_ROUNDS (default 2), BENCH_CONNECTIONS (default 64), WRK_DURATION (default 8s).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASELINE=${1:?usage: scripts/bench-scale-compare.sh BASELINE_BIN [BIN]}
THIS=${2:-$ROOT/target/release/kilat}
WORK=${BENCH_SCALE_WORK:?set BENCH_SCALE_WORK to a kept bench-scale folder}
URL=${BENCH_DB_URL:?set BENCH_DB_URL to the database of that run}
ROUNDS=${BENCH_ROUNDS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
WRK_DURATION=${WRK_DURATION:-8s}
LUA=$ROOT/scripts/bench/borrower-wrk.lua

die() { echo "bench-scale-compare: $*" >&2; exit 1; }
for bin in "$BASELINE" "$THIS"; do [ -x "$bin" ] || die "$bin is not an executable"; done
for calls in plan repayment methods sessions; do
  [ -s "$WORK/calls/$calls.txt" ] || die "$WORK/calls/$calls.txt is missing: keep a bench-scale run's folder (BENCH_KEEP=1)"
done
command -v wrk >/dev/null || die "wrk is missing (apt-get install wrk)"

export KILAT_DATABASE_URL=$URL KILAT_MODE=development KILAT_TRUST_FORWARDED_FOR=true RUST_LOG=warn
PORT=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
BASE=http://127.0.0.1:$PORT
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; true' EXIT

echo "Baseline \`$BASELINE\`, this \`$THIS\`; $(nproc) cores, kilat, PostgreSQL and wrk sharing them; $(date -u +%Y-%m-%dT%H:%MZ)."
echo
echo "| round | binary | read | requests/s | p50 | p99 | non-200 | load (1 min) |"
echo "|---|---|---|---:|---:|---:|---:|---|"
for round in $(seq 1 "$ROUNDS"); do
  for side in baseline this; do
    bin=$BASELINE; [ "$side" = this ] && bin=$THIS
    KILAT_LISTEN=127.0.0.1:$PORT "$bin" serve --jobs off >"$WORK/compare-$side.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 1 300); do curl -fsS -o /dev/null "$BASE/readyz" 2>/dev/null && break; sleep 0.1; done
    curl -fsS -o /dev/null "$BASE/readyz" || die "$bin did not start (see $WORK/compare-$side.log)"
    for read in plan repayment methods home; do
      sessions=$WORK/calls/$read.txt url=$BASE/api/v1/borrower/orders
      [ "$read" = home ] && sessions=$WORK/calls/sessions.txt url=$BASE/api/v1/borrower/home
      BENCH_SESSIONS=$sessions wrk -t2 -c"$CONNECTIONS" -d2s -s "$LUA" "$url" >/dev/null
      out=$(BENCH_SESSIONS=$sessions wrk -t2 -c"$CONNECTIONS" -d"$WRK_DURATION" --latency -s "$LUA" "$url")
      printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$round" "$side" "$read" \
        "$(awk '/^Requests\/sec/ { printf "%\047.0f", $2 }' <<<"$out")" "$(awk '$1 == "50%" { print $2 }' <<<"$out")" \
        "$(awk '$1 == "99%" { print $2 }' <<<"$out")" "$(awk '/^non-200:/ { print $2 }' <<<"$out")" \
        "$(cut -d' ' -f1 /proc/loadavg)"
    done
    kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
  done
done
