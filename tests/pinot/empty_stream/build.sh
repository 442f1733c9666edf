#!/usr/bin/env bash
# Builds empty-stream.jar (tests/pinot/test_realtime.py's stand-in stream) against a pinot-cluster build:
#   tests/pinot/empty_stream/build.sh PINOT_CLUSTER_HOME OUT_JAR
# The jar is loaded as a -javaagent (which appends it to the class path): see tests/pinot/run.sh.
set -euo pipefail
H=$1 OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -nowarn -d "$work" -cp "$H/classes:$H/lib/*" "$here"/pinotsinktest/*.java
printf 'Premain-Class: pinotsinktest.Agent\n' > "$work/manifest.txt"
jar cfm "$OUT" "$work/manifest.txt" -C "$work" pinotsinktest
