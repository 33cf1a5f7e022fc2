#!/usr/bin/env bash
# The operator console under wrk (issue 8), on SQLite and PostgreSQL, against the release binary:
#   - a fresh database per run, seeded through the public API as borrowers would (scripts/bench/seed-borrowers.mjs:
#     sign-in, the five certification steps, apply, confirm): BENCH_CONSOLE_ORDERS orders in pending_review (default
#     10,000, half Indian, half Indonesian); one of them approved and paid out through the console (a loan with its
#     plan and ledger);
#   - an operator with the reviewer and finance roles (`kilat operator create`) and one with the support role, each
#     signed in through `POST /api/v1/console/login`;
#   - `wrk -t2 -c64 -d10s --latency` after a 2 s warm-up, with the operator's session cookie, on
#       GET /api/v1/console/applications?market=IN   the review queue (the 200 oldest of 5,000 waiting, reviewer)
#       GET /api/v1/console/orders/{orderNo}           the order view of an order in review (reviewer: ID and account
#                                                      numbers unmasked, each view written to the audit trail)
#       GET /api/v1/console/orders/{orderNo}           the same as support (masked: nothing written)
#       GET /api/v1/console/orders/{orderNo}           the order view of the paid-out loan (support)
#     and the requests/s, p50/p99 latency and non-2xx answers of each.
# Writes the figures, the machine and the load average between <!-- console:begin --> and <!-- console:end --> in
# docs/PERFORMANCE.md. `make bench-console` runs it (after `make build`); `make bench` too.
#
# Knobs: KILAT_BIN (default target/release/kilat), PG_URL (an admin URL of the PostgreSQL server; default
# postgres://postgres@127.0.0.1:5432/postgres), BENCH_DATABASES (default "sqlite postgres"), BENCH_CONSOLE_ORDERS
# (default 10000), BENCH_SEED_CONCURRENCY (default 8), WRK_DURATION (default 10s), BENCH_KEEP (1 keeps the scratch
# folder and the PostgreSQL databases).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
DOC=$ROOT/docs/PERFORMANCE.md
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
DATABASES=${BENCH_DATABASES:-sqlite postgres}
ORDERS=${BENCH_CONSOLE_ORDERS:-10000}
SEED_CONCURRENCY=${BENCH_SEED_CONCURRENCY:-8}
WRK_DURATION=${WRK_DURATION:-10s}
WRK_ARGS=(-t2 -c64)
PASSWORD=bench-console-password-1

die() { printf 'bench-console: %s\n' "$*" >&2; exit 2; }
log() { printf '\n== %s\n' "$*" >&2; }
[ -x "$BIN" ] || die "no binary at $BIN (make build, or set KILAT_BIN)"
command -v wrk >/dev/null || die "wrk is not installed"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-bench-console.XXXXXX")
PIDS=()
PG_DBS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${BENCH_KEEP:-0}" = 1 ]; then
    echo "bench-console: kept $WORK" >&2
  else
    for db in "${PG_DBS[@]}"; do psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}
wait_http() {
  for _ in $(seq 1 300); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
  die "kilat did not answer $1"
}
memory_mb() { awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 } END { printf "%.1f MB (peak %.1f MB)", r / 1024, h / 1024 }' "/proc/$1/status"; }

login() { # base username: the session cookie's value
  local base=$1 user=$2
  curl -fsS -D - -o /dev/null -H 'content-type: application/json' \
    -d "{\"username\":\"$user\",\"password\":\"$PASSWORD\"}" "$base/api/v1/console/login" |
    sed -n 's/^[Ss]et-[Cc]ookie: kilat_console=\([^;]*\).*/\1/p'
}
csrf_of() { # base username: a fresh session's "cookie csrf"
  local base=$1 user=$2 out
  out=$(curl -fsS -D "$WORK/login-headers" -H 'content-type: application/json' \
    -d "{\"username\":\"$user\",\"password\":\"$PASSWORD\"}" "$base/api/v1/console/login")
  echo "$(sed -n 's/^[Ss]et-[Cc]ookie: kilat_console=\([^;]*\).*/\1/p' "$WORK/login-headers") $(node -e 'console.log(JSON.parse(process.argv[1]).data.csrfToken)' "$out")"
}

ROWS=()
wrk_row() { # db label cookie url
  local db=$1 label=$2 cookie=$3 url=$4 out load_start load_end rps p50 p99 non2xx status
  status=$(curl -sS -o /dev/null -w '%{http_code} %{size_download}' -H "Cookie: kilat_console=$cookie" "$url")
  wrk "${WRK_ARGS[@]}" -d2s -H "Cookie: kilat_console=$cookie" "$url" >/dev/null
  load_start=$(cut -d' ' -f1 /proc/loadavg)
  out=$(wrk "${WRK_ARGS[@]}" -d"$WRK_DURATION" --latency -H "Cookie: kilat_console=$cookie" "$url")
  load_end=$(cut -d' ' -f1 /proc/loadavg)
  echo "$out" >&2
  rps=$(awk '/^Requests\/sec/ { printf "%\047.0f", $2 }' <<<"$out")
  p50=$(awk '$1 == "50%" { print $2 }' <<<"$out")
  p99=$(awk '$1 == "99%" { print $2 }' <<<"$out")
  non2xx=$(awk '/Non-2xx or 3xx responses/ { print $NF }' <<<"$out")
  ROWS+=("| $db | $label | ${status%% *}, $(printf "%'d" "${status##* }") B | $rps | $p50 | $p99 | ${non2xx:-0} | $load_start → $load_end |")
}

run_db() { # name url
  local db=$1 url=$2 dir=$WORK/$1 port base pid cookie support pending paid
  mkdir -p "$dir"
  export KILAT_DATABASE_URL=$url KILAT_MODE=development KILAT_TRUST_FORWARDED_FOR=true RUST_LOG=warn
  KILAT_OPERATOR_PASSWORD=$PASSWORD "$BIN" operator create --username bench-reviewer --role reviewer,finance >&2
  KILAT_OPERATOR_PASSWORD=$PASSWORD "$BIN" operator create --username bench-support --role support >&2
  port=$(free_port)
  base=http://127.0.0.1:$port
  KILAT_LISTEN=127.0.0.1:$port "$BIN" serve >"$dir/kilat.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  wait_http "$base/readyz"
  log "$db: seeding $ORDERS orders in review through the API, $SEED_CONCURRENCY borrowers at a time"
  local started=$SECONDS
  node "$ROOT/scripts/bench/seed-borrowers.mjs" "$base" "$ORDERS" "$SEED_CONCURRENCY" "$dir/sessions.txt" "$dir/seed.json" >&2 ||
    die "$db: seeding failed: $(tail -5 "$dir/kilat.log")"
  local seed_secs=$((SECONDS - started))
  read -r cookie csrf <<<"$(csrf_of "$base" bench-reviewer)"
  support=$(login "$base" bench-support)
  local queue
  queue=$(curl -fsS -H "Cookie: kilat_console=$cookie" "$base/api/v1/console/applications?market=IN")
  read -r pending paid <<<"$(node -e 'const q = JSON.parse(process.argv[1]).data; console.log(q[1].orderNo, q[0].orderNo)' "$queue")"
  # The oldest order is approved and paid out: the order view of a loan (plan, payout, ledger).
  curl -fsS -o /dev/null -H "Cookie: kilat_console=$cookie" -H "X-CSRF-Token: $csrf" -H 'content-type: application/json' \
    -d '{"reason":"Benchmark: income verified."}' "$base/api/v1/console/orders/$paid/approve"
  curl -fsS -o /dev/null -H "Cookie: kilat_console=$cookie" -H "X-CSRF-Token: $csrf" -H 'content-type: application/json' \
    -d '{"bankReference":"BENCH0001"}' "$base/api/v1/console/orders/$paid/disburse"
  log "$db: wrk ${WRK_ARGS[*]} -d$WRK_DURATION"
  local name=SQLite
  [ "$db" = postgres ] && name=PostgreSQL
  wrk_row "$name" "review queue \`GET /console/applications?market=IN\` (reviewer)" "$cookie" "$base/api/v1/console/applications?market=IN"
  wrk_row "$name" "order view, in review (reviewer: unmasked, audited)" "$cookie" "$base/api/v1/console/orders/$pending"
  wrk_row "$name" "order view, in review (support: masked)" "$support" "$base/api/v1/console/orders/$pending"
  wrk_row "$name" "order view, paid-out loan (support)" "$support" "$base/api/v1/console/orders/$paid"
  kill -0 "$pid" 2>/dev/null || die "$db: kilat died during the run: $(tail -20 "$dir/kilat.log")"
  NOTES+=("- $name: $ORDERS orders seeded through the API in ${seed_secs} s; kilat's memory after the run $(memory_mb "$pid"); requests that failed in kilat's log: $(grep -c 'request failed' "$dir/kilat.log" || true).")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

NOTES=()
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for db in $DATABASES; do
  case $db in
    sqlite) run_db sqlite "sqlite:$WORK/console.db" ;;
    postgres)
      psql "$PG_URL" -qc 'SELECT 1' >/dev/null 2>&1 || { echo "bench-console: no PostgreSQL at $PG_URL: skipped" >&2; continue; }
      name="kilat_bench_console_$$"
      psql "$PG_URL" -qc "CREATE DATABASE $name" >/dev/null
      PG_DBS+=("$name")
      run_db postgres "${PG_URL%/*}/$name" ;;
  esac
done

SECTION=$WORK/section.md
{
  echo '<!-- console:begin -->'
  echo '## The operator console under wrk (issue 8)'
  echo
  echo "Written by \`scripts/bench-console.sh\` (\`make bench-console\`, also run by \`make bench\`) on $(date -u '+%Y-%m-%dT%H:%MZ'), commit \`$(git -C "$ROOT" rev-parse --short HEAD)\`."
  echo "Machine: $(nproc) cores ($(uname -m)); load average (1, 5, 15 min) when the script started: $LOAD_BEFORE; when it wrote this: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "$(printf "%'d" "$ORDERS") orders in review (half per market) seeded through the API, one approved and paid out; \`wrk ${WRK_ARGS[*]} -d$WRK_DURATION --latency\`"
  echo "after a 2 s warm-up, with an operator's session cookie; wrk, kilat and PostgreSQL share the cores."
  echo
  echo '| Database | Endpoint | Answer | Requests/s | p50 | p99 | Non-2xx | Load (1 min), start → end |'
  echo '|---|---|---|---:|---:|---:|---:|---|'
  printf '%s\n' "${ROWS[@]}"
  echo
  printf '%s\n' "${NOTES[@]}"
  echo '<!-- console:end -->'
} >"$SECTION"

python3 - "$DOC" "$SECTION" <<'PY'
import re, sys
doc, section = sys.argv[1], open(sys.argv[2]).read().rstrip('\n')
text = open(doc).read()
pattern = re.compile(r'<!-- console:begin -->.*?<!-- console:end -->', re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip('\n') + '\n\n' + section + '\n'
open(doc, 'w').write(text)
PY
cat "$SECTION"
