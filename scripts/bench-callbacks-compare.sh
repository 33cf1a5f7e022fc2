#!/usr/bin/env bash
# The callbacks benchmark (scripts/bench-callbacks.sh) of this checkout against an earlier commit, in one run: both
# API test binaries are built with the same optimised profile, then run in alternating rounds (earlier, this, earlier,
# this, …) on SQLite and on PostgreSQL, so that the machine's load falls on both alike. Each round is the ignored test
# `webhooks::bench_signed_callbacks_credit_100_orders_in_parallel` (100 signed Xendit callbacks at once, each checked
# credited exactly once). Writes each round, the medians and the load average between <!-- callbacks-compare:begin -->
# and <!-- callbacks-compare:end --> in docs/PERFORMANCE.md.
#
# Usage: scripts/bench-callbacks-compare.sh BASELINE_COMMIT [COMMIT]   (COMMIT defaults to HEAD; both are built from
# worktrees of their own, so the checkout can change meanwhile)
# Knobs: BENCH_ROUNDS (default 3), BENCH_DATABASES (default "sqlite postgres"), PG_URL (default
# postgres://postgres@127.0.0.1:5432/postgres), BENCH_CALLBACK_ORDERS (default 100), BENCH_TARGET_DIR (where both are
# built; default target/bench-compare), BENCH_CALLBACK_WARMUP (callbacks credited before the timed burst; a baseline
# from before 9e5806b does not read it). The profile is `release` without link-time optimisation and with 16 codegen
# units (a thin-LTO build of the test binary takes over half an hour on 2 cores), the same for both sides.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASELINE=${1:?usage: scripts/bench-callbacks-compare.sh BASELINE_COMMIT [COMMIT]}
THIS=${2:-HEAD}
DOC=$ROOT/docs/PERFORMANCE.md
ROUNDS=${BENCH_ROUNDS:-3}
DATABASES=${BENCH_DATABASES:-sqlite postgres}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
ORDERS=${BENCH_CALLBACK_ORDERS:-100}
export CARGO_TARGET_DIR=${BENCH_TARGET_DIR:-$ROOT/target/bench-compare}
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
TEST=webhooks::bench_signed_callbacks_credit_100_orders_in_parallel

log() { printf '\n== %s\n' "$*" >&2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-callbacks-compare.XXXXXX")
cleanup() {
  git -C "$ROOT" worktree remove --force "$WORK/baseline" 2>/dev/null || true
  git -C "$ROOT" worktree remove --force "$WORK/this" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Builds the API test binary of the checkout in $1 and copies it to $2.
build() {
  local exe
  exe=$(cd "$1" && cargo test --release --locked -p kilat-server --test api --no-run --message-format=json \
    | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "api":
        print(m["executable"])' | tail -1)
  [ -n "$exe" ] || { echo "no test binary built in $1" >&2; exit 1; }
  cp "$exe" "$2"
}

for side in baseline this; do
  commit=$BASELINE; [ "$side" = this ] && commit=$THIS
  git -C "$ROOT" worktree add --detach "$WORK/$side" "$commit" >/dev/null
  # The server embeds the web build; any build will do for this benchmark.
  [ -d "$ROOT/web/dist" ] && cp -a "$ROOT/web/dist" "$WORK/$side/web/"
done
baseline_commit=$(git -C "$WORK/baseline" rev-parse --short HEAD)
this_commit=$(git -C "$WORK/this" rev-parse --short HEAD)
# Each commit's binary is kept beside the build (by its full commit), so a second run of the same pair only measures.
BINS=$CARGO_TARGET_DIR/callbacks-compare
mkdir -p "$BINS"
for side in baseline this; do
  full=$(git -C "$WORK/$side" rev-parse HEAD)
  if [ ! -x "$BINS/api-$full" ]; then
    log "building $side ($full)"
    build "$WORK/$side" "$BINS/api-$full"
  fi
  ln -sf "$BINS/api-$full" "$WORK/api-$side"
done

# One round: the per-second figure of one side on one database.
round() {
  local bin=$1 db=$2 line
  local env_args=(BENCH_CALLBACK_ORDERS="$ORDERS")
  [ "$db" = postgres ] && env_args+=(TEST_DATABASE_URL="$PG_URL")
  line=$(env "${env_args[@]}" "$bin" --ignored --exact "$TEST" --nocapture 2>&1 | grep -o 'BENCH_CALLBACKS .*' | tail -1)
  printf '%s\n' "$line" | tr ' ' '\n' | sed -n 's/^per_second=//p'
}

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

rows=()
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for db in $DATABASES; do
  if [ "$db" = postgres ] && ! (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then
    rows+=("| PostgreSQL | skipped: no server on 127.0.0.1:5432 | | |")
    continue
  fi
  before=() after=()
  for r in $(seq 1 "$ROUNDS"); do
    b=$(round "$WORK/api-baseline" "$db"); a=$(round "$WORK/api-this" "$db")
    log "$db round $r: baseline $b/s, this $a/s"
    before+=("${b:-0}"); after+=("${a:-0}")
  done
  mb=$(median "${before[@]}"); ma=$(median "${after[@]}")
  change=$(python3 -c "print(f'{($ma - $mb) / $mb * 100:+.0f} %' if $mb else 'n/a')")
  name=SQLite; [ "$db" = postgres ] && name=PostgreSQL
  rows+=("| $name | $(IFS=,; echo "${before[*]}" | sed 's/,/, /g') /s | $(IFS=,; echo "${after[*]}" | sed 's/,/, /g') /s | $mb → $ma /s ($change) |")
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

section=$WORK/section.md
{
  echo "<!-- callbacks-compare:begin -->"
  echo "**Callbacks against an earlier commit, same run (scripts/bench-callbacks-compare.sh).** $ORDERS signed callbacks"
  echo "at once, commit \`$baseline_commit\` (before) against \`$this_commit\` (after), $ROUNDS alternating rounds each, both"
  echo "API test binaries built with \`release\` less link-time optimisation; measured $(date -u '+%Y-%m-%d %H:%M UTC') on"
  echo "$(nproc) cores, load average $load_start at the start and $load_end at the end (the in-process client shares the cores)."
  echo
  echo "| Database | before | after | median before → after |"
  echo "|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Command: \`scripts/bench-callbacks-compare.sh $baseline_commit $this_commit\`."
  echo "<!-- callbacks-compare:end -->"
} >"$section"
python3 - "$DOC" "$section" <<'PY'
import re, sys
doc, section = sys.argv[1], open(sys.argv[2]).read().rstrip("\n")
text = open(doc).read()
pattern = re.compile(r"<!-- callbacks-compare:begin -->.*?<!-- callbacks-compare:end -->", re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section + "\n"
open(doc, "w").write(text)
PY
cat "$section"
log "wrote the comparison into docs/PERFORMANCE.md"
