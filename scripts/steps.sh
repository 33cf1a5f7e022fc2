#!/usr/bin/env bash
# Runs `make STEP` for each step given, in order, stopping at the first that fails, and prints each step's time as it
# ends and a table of them all at the end (pass or fail), so a slow or failing step shows in CI's log at a glance.
# Beside the wall time, the CPU time (user + system) the step's processes used and their average number of busy cores:
# a step far below the machine's cores waits (on browsers, servers, a single-threaded tool) and could overlap another.
# Only the step's own processes count: the PostgreSQL server's backends, which are not its children, do not.
# `make test` uses it: scripts/steps.sh lint-quick test-rust-sqlite test-rust-pg test-web test-contract e2e
set -uo pipefail

# The CPU seconds (user + system) of this shell's finished children so far, from bash's `times` (no external tool);
# `times` runs in this shell, not in a command substitution's subshell, whose children are not the steps.
TIMES=$(mktemp); trap 'rm -f "$TIMES"' EXIT
children_cpu() { # sets CPU
  times >"$TIMES"
  CPU=$(awk 'NR == 2 {
    n = 0
    for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); n += p[1] * 60 + p[2] }
    printf "%.0f", n
  }' "$TIMES")
}

declare -a names=() secs=() cpus=() results=()
overall=0
start_all=$SECONDS
children_cpu; cpu_all=$CPU
for step in "$@"; do
  printf '\n==== make %s\n' "$step"
  start=$SECONDS
  children_cpu; cpu_start=$CPU
  ${MAKE:-make} --no-print-directory "$step"
  status=$?
  names+=("$step"); secs+=($((SECONDS - start))); children_cpu; cpus+=($((CPU - cpu_start)))
  if [ "$status" -eq 0 ]; then results+=(ok); else results+=("FAILED ($status)"); overall=$status; fi
  printf '==== make %s: %s in %d s (CPU %d s)\n' "$step" "${results[-1]}" "${secs[-1]}" "${cpus[-1]}"
  [ "$status" -eq 0 ] || break
done

busy() { awk -v c="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.2f", c / s; else print "-" }'; }
printf '\n%-20s %8s %8s %6s  %s\n' step seconds 'CPU s' cores result
for i in "${!names[@]}"; do
  printf '%-20s %8d %8d %6s  %s\n' "${names[$i]}" "${secs[$i]}" "${cpus[$i]}" "$(busy "${cpus[$i]}" "${secs[$i]}")" "${results[$i]}"
done
total=$((SECONDS - start_all)); children_cpu; cpu_total=$((CPU - cpu_all))
printf '%-20s %8d %8d %6s\n' total "$total" "$cpu_total" "$(busy "$cpu_total" "$total")"
exit "$overall"
