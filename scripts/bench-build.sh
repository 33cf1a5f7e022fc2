#!/usr/bin/env bash
# A cold `make build` (what `make run` does before it starts the server) of a commit, on a fresh clone with nothing
# built: cargo's and npm's download caches are used as they are (warm, as on CI and on a machine that ran `make` once),
# so the figure is the work, not the network. Each build: `git clone` of the repository at the commit into a scratch
# folder, `make web` (npm ci and the web build) and then `make build` (the release binary; the web build is up to
# date by then), each timed with /usr/bin/time; the clone is deleted afterwards.
#
# With BENCH_BUILD_BASELINE=<commit> it builds that commit too, in alternating rounds (round 1 the commit then the
# baseline, round 2 the baseline first, and so on), so a change is compared with its parent on the same machine in the
# same hour; the verdict uses the median of the commit's rounds. Nothing else should compile meanwhile: on 2 cores a
# second build doubles the figure.
# Budget (issue 20): a cold `make build` in at most 360 s (BENCH_BUILD_BUDGET) on this 2-core machine.
# Writes the figures, PASS/FAIL, the machine and the load average between <!-- build:begin --> and <!-- build:end -->
# in docs/PERFORMANCE.md and exits non-zero when the budget is missed or a build failed. `make bench-build` runs it;
# `make bench` runs it last.
#
# Knobs: BENCH_BUILD_COMMIT (default HEAD), BENCH_BUILD_BASELINE (default none), BENCH_BUILD_ROUNDS (default 1),
# BENCH_BUILD_BUDGET (seconds, default 360), BENCH_BUILD_TIMINGS (1: cargo's --timings report of each build is kept
# in the scratch folder, whose path is printed, and the scratch folder is kept).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DOC=$ROOT/docs/PERFORMANCE.md
ROUNDS=${BENCH_BUILD_ROUNDS:-1}
BUDGET=${BENCH_BUILD_BUDGET:-360}
TIMINGS=${BENCH_BUILD_TIMINGS:-0}

die() { printf 'bench-build: %s\n' "$*" >&2; exit 2; }
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
COMMIT=$(git -C "$ROOT" rev-parse --short "${BENCH_BUILD_COMMIT:-HEAD}") || die "no commit ${BENCH_BUILD_COMMIT:-HEAD}"
BASELINE=
if [ -n "${BENCH_BUILD_BASELINE:-}" ]; then
  BASELINE=$(git -C "$ROOT" rev-parse --short "$BENCH_BUILD_BASELINE") || die "no commit $BENCH_BUILD_BASELINE"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kilat-bench-build.XXXXXX")
cleanup() { if [ "$TIMINGS" != 1 ] && [ "${FAILED:-0}" = 0 ]; then rm -rf "$WORK"; fi; }
trap cleanup EXIT

# `cargo build` with --timings, for `make build CARGO=...` when BENCH_BUILD_TIMINGS=1.
cat >"$WORK/cargo" <<'EOF'
#!/bin/sh
if [ "$1" = build ]; then shift; exec cargo build --timings "$@"; fi
exec cargo "$@"
EOF
chmod +x "$WORK/cargo"

declare -A WALL=()
ROWS=()
FAILED=0
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

seconds() { awk '{ printf "%.0f", $1 }' "$1"; }

build_one() { # commit round
  local commit=$1 round=$2 src=$WORK/src-$1 web cargo_wall user sys packages units report cargo_cmd=cargo
  rm -rf "$src"
  git clone -q --no-checkout "$ROOT" "$src" && git -C "$src" checkout -q "$commit"
  [ "$TIMINGS" = 1 ] && cargo_cmd=$WORK/cargo
  echo "bench-build: $commit, round $round: make web" >&2
  if ! (cd "$src" && env -u CARGO_TARGET_DIR /usr/bin/time -f '%e %U %S' -o "$WORK/web.time" \
      make --no-print-directory web >"$WORK/web-$commit-$round.log" 2>&1); then
    FAILED=1; ROWS+=("| \`$commit\` | $round | make web failed ($WORK/web-$commit-$round.log) | | | | | |"); return
  fi
  echo "bench-build: $commit, round $round: make build" >&2
  if ! (cd "$src" && env -u CARGO_TARGET_DIR /usr/bin/time -f '%e %U %S' -o "$WORK/cargo.time" \
      make --no-print-directory build CARGO="$cargo_cmd" >"$WORK/build-$commit-$round.log" 2>&1); then
    FAILED=1; ROWS+=("| \`$commit\` | $round | make build failed ($WORK/build-$commit-$round.log) | | | | | |"); return
  fi
  web=$(seconds "$WORK/web.time")
  cargo_wall=$(seconds "$WORK/cargo.time")
  read -r _ user sys < <(awk '{ u += $2; s += $3 } END { printf "x %.0f %.0f\n", u, s }' "$WORK/web.time" "$WORK/cargo.time")
  packages=$(grep -c '^ *Compiling ' "$WORK/build-$commit-$round.log" || true)
  units=—
  if [ "$TIMINGS" = 1 ]; then # rustc runs and build scripts, host and target counted apart, from cargo's report
    report=$WORK/timings-$commit-$round.html
    cp "$(ls -t "$src"/target/cargo-timings/cargo-timing-*.html | head -1)" "$report"
    units=$(python3 -c 'import json, re, sys
print(len(json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", open(sys.argv[1]).read(), re.S).group(1))))' "$report")
  fi
  WALL[$commit]+="$((web + cargo_wall)) "
  ROWS+=("| \`$commit\` | $round | **$((web + cargo_wall)) s** | $web s | $cargo_wall s | $user s + $sys s | $packages | $units |")
  echo "bench-build: $commit, round $round: $((web + cargo_wall)) s (web $web s, cargo $cargo_wall s, CPU $user+$sys s, $packages packages)" >&2
  rm -rf "$src"
}

for round in $(seq 1 "$ROUNDS"); do
  if [ -z "$BASELINE" ]; then
    build_one "$COMMIT" "$round"
  elif [ $((round % 2)) = 1 ]; then
    build_one "$COMMIT" "$round"; build_one "$BASELINE" "$round"
  else
    build_one "$BASELINE" "$round"; build_one "$COMMIT" "$round"
  fi
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
MEDIAN=$(printf '%s' "${WALL[$COMMIT]:-}" | median)
VERDICT=FAIL
if [ -n "$MEDIAN" ] && [ "$MEDIAN" -le "$BUDGET" ] && [ "$FAILED" = 0 ]; then VERDICT=PASS; else FAILED=1; fi
COMPARE=
if [ -n "$BASELINE" ]; then
  BASE_MEDIAN=$(printf '%s' "${WALL[$BASELINE]:-}" | median)
  [ -n "$BASE_MEDIAN" ] && [ -n "$MEDIAN" ] &&
    COMPARE=" Baseline \`$BASELINE\`: median $BASE_MEDIAN s, so $((MEDIAN - BASE_MEDIAN)) s ($(awk -v a="$MEDIAN" -v b="$BASE_MEDIAN" 'BEGIN { printf "%+.1f", (a - b) * 100 / b }') %)."
fi

SECTION=$WORK/section.md
{
  echo '<!-- build:begin -->'
  echo '## A cold `make build` (issue 20: `make run` ≤ 6 min)'
  echo
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`scripts/bench-build.sh\` on $(nproc) cores ($(uname -m)), load average $LOAD_START as it started and $LOAD_END at the end."
  echo "Each build is a fresh \`git clone\` of the commit with nothing built (cargo's and npm's download caches warm), \`make web\`"
  echo "(npm ci, the web build) then \`make build\` (the release binary), timed with /usr/bin/time. \"packages compiled\""
  echo "counts cargo's \`Compiling\` lines (a package built for the host and for the target counts once); \"build units\""
  echo "(with BENCH_BUILD_TIMINGS=1) counts the units of cargo's --timings report (each rustc run and build script, the"
  echo "host's apart)."
  echo "$ROUNDS round(s)$([ -n "$BASELINE" ] && echo ", the commit and the baseline alternating")."
  echo
  echo "**\`$COMMIT\`: median ${MEDIAN:-?} s, budget $BUDGET s: $VERDICT.**$COMPARE"
  echo
  echo '| commit | round | cold make build | make web | cargo build --release | CPU (user + system) | packages compiled | build units |'
  echo '|---|---|---|---|---|---|---|---|'
  printf '%s\n' "${ROWS[@]}"
  echo '<!-- build:end -->'
} >"$SECTION"

python3 - "$DOC" "$SECTION" <<'PY'
import sys, re
doc, section = sys.argv[1], open(sys.argv[2]).read().rstrip('\n')
text = open(doc).read()
pattern = re.compile(r'<!-- build:begin -->.*?<!-- build:end -->', re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip('\n') + '\n\n' + section + '\n'
open(doc, 'w').write(text)
PY
cat "$SECTION"
[ "$TIMINGS" = 1 ] && echo "bench-build: logs and timings reports kept in $WORK" >&2
exit $FAILED
