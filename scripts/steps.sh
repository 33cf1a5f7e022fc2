#!/usr/bin/env bash
# Runs `make STEP` for each step given, in order, stopping at the first that fails, and prints each step's time as it
# ends and a table of them all at the end (pass or fail), so a slow or failing step shows in CI's log at a glance.
# `make test` uses it: scripts/steps.sh lint test-rust-sqlite test-rust-pg test-web test-contract e2e
set -uo pipefail

declare -a names=() secs=() results=()
overall=0
start_all=$SECONDS
for step in "$@"; do
  printf '\n==== make %s\n' "$step"
  start=$SECONDS
  ${MAKE:-make} --no-print-directory "$step"
  status=$?
  names+=("$step"); secs+=($((SECONDS - start)))
  if [ "$status" -eq 0 ]; then results+=(ok); else results+=("FAILED ($status)"); overall=$status; fi
  printf '==== make %s: %s in %d s\n' "$step" "${results[-1]}" "${secs[-1]}"
  [ "$status" -eq 0 ] || break
done

printf '\n%-20s %8s  %s\n' step seconds result
for i in "${!names[@]}"; do printf '%-20s %8d  %s\n' "${names[$i]}" "${secs[$i]}" "${results[$i]}"; done
printf '%-20s %8d\n' total $((SECONDS - start_all))
exit "$overall"
