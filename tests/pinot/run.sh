#!/usr/bin/env bash
# `make test-pinot`: start a real Pinot cluster (controller, server, broker in one JVM) from
# ../shared/pinot-cluster/dist (or $PINOT_CLUSTER_HOME), run tests/pinot against it, stop it (on failure too).
# Usage: tests/pinot/run.sh PYTHON [pytest args]. With PINOT_TEST_CONTROLLER set, runs against that cluster
# instead and starts nothing. Ports and run dir: start.sh's env vars (PINOT_CONTROLLER_PORT, PINOT_CLUSTER_RUN, ...).
set -uo pipefail
cd "$(dirname "$0")/../.."
PY=${1:?usage: tests/pinot/run.sh PYTHON [pytest args]}
shift
T0=$(date +%s)
if [ -z "${PINOT_TEST_CONTROLLER:-}" ]; then
  DIST=${PINOT_CLUSTER_HOME:-../shared/pinot-cluster/dist}
  if [ ! -d "$DIST/classes" ] || [ ! -x "$DIST/../start.sh" ]; then
    echo "test-pinot: FAILED: no Pinot cluster build at $DIST (set PINOT_CLUSTER_HOME to pinot-cluster's dist/)" >&2
    exit 1
  fi
  DIST=$(cd "$DIST" && pwd)
  export PINOT_CLUSTER_HOME=$DIST
  RUN=${PINOT_CLUSTER_RUN:-/tmp/pinot-cluster-run}
  if [ -s "$RUN/cluster.pid" ] && kill -0 "$(cat "$RUN/cluster.pid")" 2>/dev/null; then  # not ours to stop
    echo "test-pinot: FAILED: a cluster already runs from $RUN (pid $(cat "$RUN/cluster.pid")); stop it, or set" \
         "PINOT_CLUSTER_RUN and the ports to other values, or test it with PINOT_TEST_CONTROLLER=<its URL>" >&2
    exit 1
  fi
  stop() { "$DIST/../stop.sh" >/dev/null 2>&1 || true; rm -f "/tmp/test-pinot-empty-stream.$$.jar"; }
  trap stop EXIT
  trap 'exit 130' INT TERM
  # A stand-in stream (tests/pinot/empty_stream), so that test_realtime.py can make REALTIME tables: the
  # cluster has no stream plugin. Without javac the REALTIME tests skip, saying why.
  STREAM_JAR=/tmp/test-pinot-empty-stream.$$.jar
  if command -v javac >/dev/null && tests/pinot/empty_stream/build.sh "$DIST" "$STREAM_JAR" >/dev/null 2>&1; then
    export PINOT_CLUSTER_JAVA_OPTS="${PINOT_CLUSTER_JAVA_OPTS:-} -javaagent:$STREAM_JAR"
  fi
  if ! PINOT_CLUSTER_FRESH=1 "$DIST/../start.sh" >/tmp/test-pinot-start.$$.log 2>&1; then
    echo "test-pinot: FAILED: the Pinot cluster did not start: $(tail -3 /tmp/test-pinot-start.$$.log | tr '\n' ' ')" >&2
    rm -f /tmp/test-pinot-start.$$.log
    exit 1
  fi
  rm -f /tmp/test-pinot-start.$$.log
  echo "test-pinot: cluster up in $(( $(date +%s) - T0 )) s (${PINOT_CLUSTER_RUN:-/tmp/pinot-cluster-run})"
fi
"$PY" -m pytest -q -p no:cacheprovider -m pinot tests/pinot "$@"
rc=$?
echo "test-pinot: exit $rc in $(( $(date +%s) - T0 )) s"
exit $rc
