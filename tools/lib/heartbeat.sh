#!/usr/bin/env bash
# heartbeat.sh LABEL CMD...: run CMD with its output in a log file; every HEARTBEAT_SECONDS (default 20)
# print one line: "LABEL: still working (N s): <the newest line of the log>" (for pip: the package it
# collects or installs). On failure, the log's last 40 lines and CMD's exit code.
set -uo pipefail
label=$1; shift
every=${HEARTBEAT_SECONDS:-20}
log=$(mktemp "${TMPDIR:-/tmp}/heartbeat.XXXXXX")
trap 'rm -f "$log"' EXIT
start=$SECONDS
"$@" >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -f "$log"; exit 130' INT TERM
next=$every
while kill -0 "$pid" 2>/dev/null; do
  sleep 1
  if (( SECONDS - start >= next )); then
    last=$(grep -v '^\s*$' "$log" | tail -n 1 | cut -c1-100)
    echo "$label: still working ($(( SECONDS - start )) s)${last:+: $last}"
    next=$(( next + every ))
  fi
done
wait "$pid"; rc=$?
if (( rc != 0 )); then
  echo "$label: failed (exit $rc) after $(( SECONDS - start )) s; the last lines:" >&2
  tail -n 40 "$log" >&2
fi
exit "$rc"
