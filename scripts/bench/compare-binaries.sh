#!/usr/bin/env bash
# Two (or more) kilat binaries against each other on the borrower API, in alternating rounds (docs/PERFORMANCE.md,
# "The allocator"): each binary on core 0 (`taskset`), wrk on core 1, on a copy of one SQLite database seeded once
# with 200 signed-in borrowers (scripts/bench/seed-borrowers.mjs); per run, GET /api/v1/borrower/home and /orders for
# 10 s after a 2 s warm-up: requests/s, p99, the server's CPU per request (from /proc), non-2xx answers, the load
# average; and each binary's resident memory after its runs (VmRSS, VmHWM).
#
# Usage: scripts/bench/compare-binaries.sh NAME=PATH NAME=PATH …   e.g. before=/tmp/kilat-main after=target/release/kilat
# A PATH may be a wrapper script that sets the environment and `exec`s the binary. Knobs: ROUNDS (default 3),
# WORK (scratch folder; default a new one under /tmp). Needs wrk, node and taskset; a 2-core machine at least.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LUA=$ROOT/scripts/bench/borrower-wrk.lua
ROUNDS=${ROUNDS:-3}
WORK=${WORK:-$(mktemp -d /tmp/kilat-compare.XXXXXX)}
PORT=${PORT:-8791}
[ $# -ge 2 ] || { echo "usage: $0 NAME=PATH NAME=PATH …" >&2; exit 2; }
for tool in wrk node taskset curl; do command -v "$tool" >/dev/null || { echo "$0: $tool is missing" >&2; exit 2; }; done

start() { # binary database: starts it on core 0; sets SERVER
  KILAT_LISTEN=127.0.0.1:$PORT KILAT_DATABASE_URL=sqlite://$2 KILAT_MODE=development KILAT_TRUST_FORWARDED_FOR=true \
    RUST_LOG=warn taskset -c 0 "$1" serve >"$WORK/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 200); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && return; sleep 0.1; done
  echo "$0: $1 did not start: $(tail -3 "$WORK/server.log")" >&2
  exit 1
}
stop() { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
trap stop EXIT

echo "seeding with ${1#*=} into $WORK" >&2
start "${1#*=}" "$WORK/seed.db"
node "$ROOT/scripts/bench/seed-borrowers.mjs" "http://127.0.0.1:$PORT" 200 8 "$WORK/sessions.txt" "$WORK/seed.json" >&2
stop

TICKS=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
for r in $(seq "$ROUNDS"); do
  for spec in "$@"; do
    name=${spec%%=*} bin=${spec#*=}
    rm -f "$WORK/run.db"*
    for f in "$WORK"/seed.db*; do cp "$f" "$WORK/run.db${f#"$WORK"/seed.db}"; done
    start "$bin" "$WORK/run.db"
    for ep in home orders; do
      url=http://127.0.0.1:$PORT/api/v1/borrower/$ep
      BENCH_SESSIONS=$WORK/sessions.txt taskset -c 1 wrk -t1 -c64 -d2s -s "$LUA" "$url" >/dev/null
      before=$(cpu_ticks "$SERVER")
      out=$(BENCH_SESSIONS=$WORK/sessions.txt taskset -c 1 wrk -t1 -c64 -d10s --latency -s "$LUA" "$url")
      after=$(cpu_ticks "$SERVER")
      requests=$(awk '/requests in/ { print $1 }' <<<"$out")
      printf 'round %s %-10s %-6s %9s req/s  p99 %8s  %6s µs CPU/request  non-2xx %s  load %s\n' "$r" "$name" "$ep" \
        "$(awk '/Requests\/sec/ { print $2 }' <<<"$out")" "$(awk '$1 == "99%" { print $2 }' <<<"$out")" \
        "$(awk -v a="$before" -v b="$after" -v n="$requests" -v t="$TICKS" 'BEGIN { printf "%.1f", (b - a) * 1e6 / t / n }')" \
        "$(awk '/Non-2xx/ { print $NF }' <<<"$out" | grep . || echo 0)" "$(cut -d' ' -f1 /proc/loadavg)"
    done
    printf 'round %s %-10s memory: %s\n' "$r" "$name" "$(grep -E 'VmRSS|VmHWM' "/proc/$SERVER/status" | tr -s ' \t\n' ' ')"
    stop
  done
done
