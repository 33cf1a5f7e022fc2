#!/usr/bin/env bash
# Performance budgets of the marketing site (issue 2), measured against the release binary and web/dist:
#   - Lighthouse (mobile defaults) on / and /?lang=1: performance >= 95; accessibility, best practices, SEO 100
#   - first view in Chromium: <= 100 KB of compressed JavaScript, <= 250 KB in all (KB = 1000 bytes)
#   - kilat serves / at >= 80% of the requests per second of nginx serving web/dist (same run, wrk on 127.0.0.1),
#     and its resident memory (VmRSS, sampled every 0.1 s from start-up to the end of the run) peaks under 50 MB
# Writes the figures, the machine and the date between <!-- site:begin --> and <!-- site:end --> in
# docs/PERFORMANCE.md, prints PASS/FAIL per budget and exits non-zero when any fails. `make bench` runs it after
# `make build`; it installs what it needs (wrk, nginx, chromium from apt; lighthouse from scripts/bench).
#
# Knobs: KILAT_BIN (binary), BENCH_LH_RUNS (Lighthouse runs per page, median taken; default 3),
# BENCH_WRK_ROUNDS (kilat-then-nginx rounds; the median of their ratios decides; default 3), BENCH_WRK_DURATION (default 10s).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
DIST=$ROOT/web/dist
DOC=$ROOT/docs/PERFORMANCE.md
NGINX_CONF=$ROOT/../shared/bench/nginx-reference.conf
LH_RUNS=${BENCH_LH_RUNS:-3}
WRK_ROUNDS=${BENCH_WRK_ROUNDS:-3}
WRK_DURATION=${BENCH_WRK_DURATION:-10s}
CHROME_FLAGS="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync"
NPM_CI="npm ci --no-audit --no-fund --loglevel=error"

log() { printf '\n== %s\n' "$*" >&2; }
die() { printf 'bench-site: %s\n' "$*" >&2; exit 2; }

# ---- tools -------------------------------------------------------------------------------------------------
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v chromium >/dev/null || missing+=(chromium)
command -v curl >/dev/null || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
command -v node >/dev/null || die "node is missing: install Node.js 20 or newer"

install_npm() { # dir
  local dir=$1
  if [ ! -f "$dir/node_modules/.installed" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.installed" ]; then
    log "npm ci in ${dir#"$ROOT"/}"
    (cd "$dir" && $NPM_CI) >&2
    touch "$dir/node_modules/.installed"
  fi
}
install_npm "$ROOT/e2e"          # playwright-core, for the transfer measurement
install_npm "$ROOT/scripts/bench" # lighthouse

[ -x "$BIN" ] || die "$BIN is missing: run \`make build\` first (or set KILAT_BIN)"
[ -f "$DIST/index.html" ] || die "$DIST/index.html is missing: run \`make build\` first"
[ -f "$NGINX_CONF" ] || die "$NGINX_CONF is missing (the nginx reference configuration, in shared/bench)"

# ---- scratch folder and processes --------------------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-bench-XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/lh" "$WORK/wrk" "$WORK/home" "$WORK/nginx"

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

wait_http() { # url what
  for _ in $(seq 1 200); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  die "$2 did not answer $1"
}

rss_kb() { # pid: VmRSS in kB (no fork: read the status file with bash)
  local key value _
  while read -r key value _; do
    if [ "$key" = VmRSS: ]; then echo "$value"; return; fi
  done <"/proc/$1/status"
  echo 0
}
sample_rss() { # pid out: keeps the peak VmRSS in out until killed
  local peak=0 now
  while kill -0 "$1" 2>/dev/null; do
    now=$(rss_kb "$1")
    if [ "$now" -gt "$peak" ]; then peak=$now; echo "$peak" >"$2"; fi
    sleep 0.1
  done
}

KILAT_PORT=$(free_port)
log "starting kilat on 127.0.0.1:$KILAT_PORT"
KILAT_LISTEN=127.0.0.1:$KILAT_PORT KILAT_DATABASE_URL="sqlite://$WORK/kilat.db" KILAT_MODE=development RUST_LOG=warn \
  "$BIN" serve >"$WORK/kilat.log" 2>&1 &
KILAT_PID=$!
PIDS+=("$KILAT_PID")
wait_http "http://127.0.0.1:$KILAT_PORT/healthz" kilat
# kilat's resident memory from here to the end of the run (Lighthouse, the transfer check, warm-up, wrk rounds).
echo 0 >"$WORK/rss-peak-all-kb.txt"
sample_rss "$KILAT_PID" "$WORK/rss-peak-all-kb.txt" &
RSS_SAMPLER=$!
PIDS+=("$RSS_SAMPLER")

NGINX_PORT=$(free_port)
log "starting nginx on 127.0.0.1:$NGINX_PORT (shared/bench/nginx-reference.conf, root web/dist)"
sed -e "s|@ROOT@|$DIST|g" -e "s|@PORT@|$NGINX_PORT|g" -e "s|@RUN@|$WORK/nginx|g" "$NGINX_CONF" >"$WORK/nginx.conf"
"$NGINX" -c "$WORK/nginx.conf" -p "$WORK/nginx" -e "$WORK/nginx/error.log" >"$WORK/nginx.log" 2>&1 &
PIDS+=($!)
wait_http "http://127.0.0.1:$NGINX_PORT/" nginx

# What each server answers for / with Accept-Encoding: gzip (the same request wrk makes).
for server in kilat nginx; do
  port=KILAT_PORT; [ $server = nginx ] && port=NGINX_PORT
  curl -sS -o "$WORK/$server.body" -D "$WORK/$server.headers" -H 'Accept-Encoding: gzip' "http://127.0.0.1:${!port}/"
done

# ---- Lighthouse ------------------------------------------------------------------------------------------
LH="$ROOT/scripts/bench/node_modules/lighthouse/cli/index.js"
LOAD_LH=$(cut -d' ' -f1-3 /proc/loadavg)
for page in home home-india; do
  path=/; [ $page = home-india ] && path='/?lang=1'
  for i in $(seq 1 "$LH_RUNS"); do
    log "lighthouse $path (run $i of $LH_RUNS)"
    HOME="$WORK/home" CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium} node "$LH" "http://127.0.0.1:$KILAT_PORT$path" \
      --quiet --output=json --output-path="$WORK/lh/$page-$i.json" \
      --only-categories=performance,accessibility,best-practices,seo \
      --chrome-flags="$CHROME_FLAGS" || echo "lighthouse failed on $path (run $i)" >&2
  done
done

# ---- first-view transfer ---------------------------------------------------------------------------------
log "first-view transfer of / and /?lang=1 in chromium"
HOME="$WORK/home" node "$ROOT/scripts/bench/transfer.mjs" "http://127.0.0.1:$KILAT_PORT/" "http://127.0.0.1:$KILAT_PORT/?lang=1" \
  >"$WORK/transfer.json" || echo "the transfer measurement failed" >&2

# ---- throughput and memory -------------------------------------------------------------------------------
rss_kb "$KILAT_PID" >"$WORK/rss-before-wrk-kb.txt"

WRK=(wrk -t2 -c64 -H 'Accept-Encoding: gzip')
LOAD_WRK=$(cut -d' ' -f1-3 /proc/loadavg)
log "wrk warm-up (2 s each)"
"${WRK[@]}" -d2s "http://127.0.0.1:$KILAT_PORT/" >/dev/null
"${WRK[@]}" -d2s "http://127.0.0.1:$NGINX_PORT/" >/dev/null
echo 0 >"$WORK/rss-peak-kb.txt"
for round in $(seq 1 "$WRK_ROUNDS"); do
  log "wrk round $round of $WRK_ROUNDS: kilat"
  sample_rss "$KILAT_PID" "$WORK/rss-peak-round-kb.txt" &
  sampler=$!
  "${WRK[@]}" -d"$WRK_DURATION" --latency "http://127.0.0.1:$KILAT_PORT/" | tee "$WORK/wrk/kilat-$round.txt" >&2
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  peak=$(cat "$WORK/rss-peak-round-kb.txt" 2>/dev/null || echo 0)
  if [ "$peak" -gt "$(cat "$WORK/rss-peak-kb.txt")" ]; then echo "$peak" >"$WORK/rss-peak-kb.txt"; fi
  log "wrk round $round of $WRK_ROUNDS: nginx"
  "${WRK[@]}" -d"$WRK_DURATION" --latency "http://127.0.0.1:$NGINX_PORT/" | tee "$WORK/wrk/nginx-$round.txt" >&2
done
kill -0 "$KILAT_PID" 2>/dev/null || die "kilat died during the run: $(tail -20 "$WORK/kilat.log")"
rss_kb "$KILAT_PID" >"$WORK/rss-after-kb.txt"
kill "$RSS_SAMPLER" 2>/dev/null || true

# ---- report ------------------------------------------------------------------------------------------------
{
  echo "chromium=$(chromium --version 2>/dev/null | head -1 | sed 's/ built on.*//')"
  echo "nginx=$("$NGINX" -v 2>&1 | head -1 | sed 's/^nginx version: //')"
  echo "wrk=$(wrk -v 2>&1 | head -1 | awk '{print $1, $2}')"
  echo "lighthouse=$(node -p "require('$ROOT/scripts/bench/node_modules/lighthouse/package.json').version")"
  echo "commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)"
  echo "lh_runs=$LH_RUNS"
  echo "load_lighthouse=$LOAD_LH"
  echo "load_wrk=$LOAD_WRK"
  echo "wrk_rounds=$WRK_ROUNDS"
  echo "wrk_duration=$WRK_DURATION"
} >"$WORK/meta.txt"
node "$ROOT/scripts/bench/report.mjs" "$WORK" "$DOC"
