#!/usr/bin/env bash
# The e2e tier (make e2e): pytest -m e2e, with the files that spend most of their time waiting on a
# controller's fixed timer run in a second pytest process beside the rest instead of after it.
# tests/e2e/test_fleet.py waits out Kueue v0.19.2's MultiKueue nomination round (300 s, fixed in
# pkg/controller/workloaddispatcher/incrementaldispatcher.go) and its lost-worker path: about 10 of its
# 12-14 minutes are idle control planes, so beside the other files it adds little CPU and no wall time.
# Usage: tools/ci/e2e.sh VENV [pytest args...]
#   With a file or node id among the args, pytest runs just that, in one process, as before.
#   --junitxml=X.xml writes the second process's report to X.beside.xml (tools/ci/summary.py adds them up).
set -uo pipefail
venv=$1
shift
BESIDE=(tests/e2e/test_fleet.py)
pytest=("$venv/bin/pytest" -m e2e -p no:cacheprovider)

for arg in "$@"; do
  if [[ $arg != -* && ( $arg == tests/* || $arg == */tests/* || $arg == *.py* ) ]]; then
    exec "${pytest[@]}" "$@"   # a selection: one process, exactly what was asked
  fi
done

beside_args=()
for arg in "$@"; do
  if [[ $arg == --junitxml=*.xml ]]; then beside_args+=("${arg%.xml}.beside.xml"); else beside_args+=("$arg"); fi
done
log="$(mktemp "${TMPDIR:-/tmp}/gke-accel-e2e-beside.XXXXXX")"
"${pytest[@]}" "${beside_args[@]}" "${BESIDE[@]}" >"$log" 2>&1 &
beside=$!
stop_beside() { kill -TERM "$beside" 2>/dev/null; wait "$beside" 2>/dev/null; }
trap 'stop_beside; rm -f "$log"; exit 130' INT TERM
echo "e2e: ${BESIDE[*]} runs beside the other files (pid $beside); its output follows theirs"

ignore=()
for f in "${BESIDE[@]}"; do ignore+=("--ignore=$f"); done
rc=0
"${pytest[@]}" "${ignore[@]}" "$@" || rc=$?
wait "$beside"
beside_rc=$?
(( beside_rc == 5 )) && beside_rc=0   # -k or -m chose none of its tests: nothing to run there
echo "=== e2e beside: ${BESIDE[*]} (exit $beside_rc) ==="
cat "$log"
rm -f "$log"
trap - INT TERM
(( rc != 0 )) && exit "$rc"
exit "$beside_rc"
