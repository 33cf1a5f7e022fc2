#!/usr/bin/env bash
# Instructions per request of kilat's GET /api/v1/borrower/orders and /home and of the reference's GET /orders
# (../shared/bench/ref-server), counted by valgrind's callgrind: a figure that does not move with the machine's load,
# for checking a change to the read path when wall-clock runs are too noisy (docs/PERFORMANCE.md, "Where the time goes").
#
#   scripts/bench/instructions.sh [sqlite|postgres]...      (default: sqlite)
#
# Seeds kilat through its API (seed-borrowers.mjs) and the reference with `ref-server seed`, then runs each server
# under `valgrind --tool=callgrind --instr-atstart=no`: a warm-up, instrumentation on, `wrk -t1 -c8` for
# INSTR_DURATION (default 10s) with the seeded sessions round robin, instrumentation off; prints the total instructions
# over the requests answered. User space of the server's process only: on SQLite that includes the database engine, on
# PostgreSQL it does not. Two runs of one binary differ by about 2%.
#
# Knobs: KILAT_BIN (default target/release/kilat), REF_BIN (default the reference scripts/bench-borrower.sh builds),
# PG_URL (admin URL; default postgres://postgres@127.0.0.1:5432/postgres), BENCH_BORROWERS (default 200),
# INSTR_DURATION, INSTR_CONNECTIONS (default 8), KILAT_ENV (extra NAME=VALUE settings for kilat, space separated).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
REF_BIN=${REF_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/kilat-bench/ref-target/release/ref-server}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
BORROWERS=${BENCH_BORROWERS:-200}
DURATION=${INSTR_DURATION:-10s}
CONNECTIONS=${INSTR_CONNECTIONS:-8}
LUA=$ROOT/scripts/bench/borrower-wrk.lua
DATABASES=("${@:-sqlite}")
read -r -a KILAT_EXTRA <<<"${KILAT_ENV:-}"

die() { printf 'instructions: %s\n' "$*" >&2; exit 2; }
for tool in valgrind callgrind_control wrk curl node; do
  command -v "$tool" >/dev/null || die "$tool is missing (apt-get install valgrind wrk curl; Node.js 20)"
done
[ -x "$BIN" ] || die "$BIN is missing: run \`cargo build --release\` (or set KILAT_BIN)"
[ -x "$REF_BIN" ] || die "$REF_BIN is missing: run scripts/bench-borrower.sh once (it builds the reference), or set REF_BIN"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-instructions-XXXXXX")
PIDS=()
PG_DBS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  for name in "${PG_DBS[@]}"; do
    psql "$PG_URL" -q -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null 2>&1 || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

wait_200() { # url session_file
  local code=000
  for _ in $(seq 1 600); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Session-Id: $(head -1 "$2")" "$1" 2>/dev/null || true)
    [ "$code" = 200 ] && return 0
    sleep 0.2
  done
  die "$1 answered $code"
}

kilat_env() { # port url
  echo KILAT_LISTEN=127.0.0.1:$1 KILAT_DATABASE_URL=$2 KILAT_MODE=development KILAT_TRUST_FORWARDED_FOR=true \
    RUST_LOG=warn "${KILAT_EXTRA[@]}"
}

count() { # label url sessions -- command...: prints "label Ir/request requests"
  local label=$1 url=$2 sessions=$3 file out pid requests total
  file=$WORK/$(tr -c 'A-Za-z0-9\n' '_' <<<"$label")
  out=$file.callgrind
  shift 4
  valgrind --tool=callgrind --trace-children=yes --instr-atstart=no --callgrind-out-file="$out" "$@" \
    >"$file.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  wait_200 "$url" "$sessions"
  BENCH_SESSIONS=$sessions wrk -t1 -c"$CONNECTIONS" -d3s -s "$LUA" "$url" >/dev/null
  callgrind_control -i on "$pid" >/dev/null 2>&1
  BENCH_SESSIONS=$sessions wrk -t1 -c"$CONNECTIONS" -d"$DURATION" -s "$LUA" "$url" >"$file.wrk"
  callgrind_control -i off "$pid" >/dev/null 2>&1
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  requests=$(awk '/requests in/ { print $1 }' "$file.wrk")
  grep -q '^non-200: 0$' "$file.wrk" || die "$label: some answers were not 200: $(grep -E '^(non-200|statuses)' "$file.wrk" | tr '\n' ' ')"
  total=$(cat "$out"* | awk '/^totals:/ { s += $2 } END { print s + 0 }')
  awk -v l="$label" -v t="$total" -v r="$requests" 'BEGIN { printf "%-36s %9.0f instructions/request (%d requests)\n", l, t / r, r }'
}

for db in "${DATABASES[@]}"; do
  case $db in
    sqlite)
      kilat_url=sqlite://$WORK/kilat.db
      ref_url=sqlite://$WORK/ref.db
      ;;
    postgres)
      base=kilat_instr_$(date +%Y%m%d%H%M%S)_$$
      for name in "$base" "${base}_ref"; do
        PG_DBS+=("$name")
        psql "$PG_URL" -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$name\"" >/dev/null
      done
      kilat_url=${PG_URL%/*}/$base
      ref_url=${PG_URL%/*}/${base}_ref
      ;;
    *) die "unknown database $db (sqlite or postgres)" ;;
  esac
  # Seeding runs natively; the servers under valgrind only read.
  port=$(free_port)
  # shellcheck disable=SC2046
  env $(kilat_env "$port" "$kilat_url") "$BIN" serve >"$WORK/seed-$db.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 300); do curl -fs -o /dev/null "http://127.0.0.1:$port/readyz" && break; sleep 0.1; done
  node "$ROOT/scripts/bench/seed-borrowers.mjs" "http://127.0.0.1:$port" "$BORROWERS" 8 "$WORK/sessions-$db.txt" \
    "$WORK/seed-$db.json" >&2
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  "$REF_BIN" seed "$ref_url" "$BORROWERS" "$WORK/ref-tokens-$db.txt"
  for ep in orders home; do
    port=$(free_port)
    # shellcheck disable=SC2046
    count "kilat $db GET /borrower/$ep" "http://127.0.0.1:$port/api/v1/borrower/$ep" "$WORK/sessions-$db.txt" -- \
      env $(kilat_env "$port" "$kilat_url") "$BIN" serve
  done
  port=$(free_port)
  count "reference $db GET /orders" "http://127.0.0.1:$port/orders" "$WORK/ref-tokens-$db.txt" -- \
    "$REF_BIN" serve "$ref_url" "127.0.0.1:$port"
done
