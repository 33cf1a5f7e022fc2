#!/usr/bin/env bash
# Accessibility budget of the borrower app (issue 19, "Done when"): Lighthouse accessibility 100 on the app's home,
# loan and payment pages at 390×844, signed in with a loan paid out and a payment open. Starts the release binary on a
# fresh SQLite file in development mode, seeds one borrower through the public API (scripts/bench/seed-borrowers.mjs),
# then scripts/bench/app-a11y.mjs approves and pays out the loan through the console API and runs Lighthouse.
# Writes the scores, the machine's load and the date between <!-- app-a11y:begin --> and <!-- app-a11y:end --> in
# docs/PERFORMANCE.md, prints PASS/FAIL per page and exits non-zero when any is below 100. `make bench` runs it.
#
# Knobs: KILAT_BIN (binary), BENCH_A11Y_RUNS (Lighthouse runs per page, median taken; default 1: the score does not
# vary with load), BENCH_KEEP (1 keeps the scratch folder).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${KILAT_BIN:-$ROOT/target/release/kilat}
DOC=$ROOT/docs/PERFORMANCE.md
RUNS=${BENCH_A11Y_RUNS:-1}

log() { printf '\n== %s\n' "$*" >&2; }
die() { printf 'bench-app-a11y: %s\n' "$*" >&2; exit 2; }

command -v node >/dev/null || die "node is missing: install Node.js 20 or newer"
command -v curl >/dev/null || die "curl is missing"
[ -x "${CHROME_PATH:-/usr/bin/chromium}" ] || die "chromium is missing (make chromium)"
[ -x "$BIN" ] || die "$BIN is missing: run \`make build\` first (or set KILAT_BIN)"
if [ ! -f "$ROOT/scripts/bench/node_modules/.installed" ] ||
  [ "$ROOT/scripts/bench/package-lock.json" -nt "$ROOT/scripts/bench/node_modules/.installed" ]; then
  log "npm ci in scripts/bench (lighthouse)"
  (cd "$ROOT/scripts/bench" && npm ci --no-audit --no-fund --loglevel=error) >&2
  touch "$ROOT/scripts/bench/node_modules/.installed"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-a11y-XXXXXX")
KILAT_PID=
cleanup() {
  [ -n "$KILAT_PID" ] && kill "$KILAT_PID" 2>/dev/null && wait "$KILAT_PID" 2>/dev/null
  if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
mkdir -p "$WORK/home"

PORT=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
BASE=http://127.0.0.1:$PORT
log "starting kilat on $BASE"
KILAT_LISTEN=127.0.0.1:$PORT KILAT_DATABASE_URL="sqlite://$WORK/kilat.db" KILAT_MODE=development \
  KILAT_TRUST_FORWARDED_FOR=true RUST_LOG=warn "$BIN" serve >"$WORK/kilat.log" 2>&1 &
KILAT_PID=$!
for _ in $(seq 1 300); do curl -fsS -o /dev/null "$BASE/healthz" 2>/dev/null && break; sleep 0.1; done
curl -fsS -o /dev/null "$BASE/healthz" || die "kilat did not start: $(tail -20 "$WORK/kilat.log")"

log "seeding one borrower"
node "$ROOT/scripts/bench/seed-borrowers.mjs" "$BASE" 1 1 "$WORK/sessions.txt" "$WORK/seed.json" >&2
SESSION=$(head -1 "$WORK/sessions.txt")
[ -n "$SESSION" ] || die "no borrower was seeded"

LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
status=0
HOME="$WORK/home" node "$ROOT/scripts/bench/app-a11y.mjs" "$BASE" "$SESSION" "$WORK/kilat.log" "$WORK" "$RUNS" | tee "$WORK/lines.txt" || status=$?

# ---- report ------------------------------------------------------------------------------------------------
LIGHTHOUSE_VERSION=$(node -p "require('$ROOT/scripts/bench/node_modules/lighthouse/package.json').version")
CHROMIUM_VERSION=$("${CHROME_PATH:-/usr/bin/chromium}" --version 2>/dev/null | head -1 | sed 's/ built on.*//')
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)
{
  echo "<!-- app-a11y:begin -->"
  echo "### Borrower app: Lighthouse accessibility (scripts/bench-app-a11y.sh)"
  echo
  echo "Budget: 100 on each page, at 390×844 (mobile emulation, device scale 3), signed in, with a loan paid out and a payment open."
  echo "$(date -u +%Y-%m-%d), commit $COMMIT, $(nproc) cores, load average $LOAD, $CHROMIUM_VERSION, Lighthouse $LIGHTHOUSE_VERSION, $RUNS run(s) a page (median)."
  echo
  echo "| Page | Path | Score | Budget |"
  echo "|---|---|---|---|"
  if [ -f "$WORK/a11y.json" ]; then
    node -e "
      const r = require('$WORK/a11y.json');
      for (const [name, p] of Object.entries(r)) {
        const shown = p.path.replace(/orders\/[^?]+/, 'orders/{orderNo}').replace(/payments\/[^?]+/, 'payments/{paymentId}');
        console.log('| ' + name + ' | \`' + shown + '\` | ' + p.median + (p.failing.length ? ' (' + p.failing.join(', ') + ')' : '') + ' | ' + (p.median === 100 ? 'PASS' : 'FAIL') + ' |');
      }"
  else
    echo "| (no result) | | | FAIL |"
  fi
  echo "<!-- app-a11y:end -->"
} >"$WORK/block.md"
if grep -q '<!-- app-a11y:begin -->' "$DOC"; then
  node -e "
    const fs = require('fs');
    const doc = fs.readFileSync('$DOC', 'utf8');
    const block = fs.readFileSync('$WORK/block.md', 'utf8').trimEnd();
    fs.writeFileSync('$DOC', doc.replace(/<!-- app-a11y:begin -->[\s\S]*<!-- app-a11y:end -->/, block));"
else
  printf '\n%s\n' "$(cat "$WORK/block.md")" >>"$DOC"
fi
exit "$status"
