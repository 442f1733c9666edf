#!/usr/bin/env bash
# Builds pinot-spf-concat: Apache Pinot's segment processing framework (pinot-core's
# org.apache.pinot.core.segment.processing.*: SegmentProcessorFramework, its config, mapper, reducers,
# partitioners, time handlers, generic-row files) compiled beside pinot-verify's classes, plus our own driver
# SpfConcat.java. Nothing fetched or compiled is committed: sources come from the bare mirror by `git show` into a
# scratch folder, classes go to $PINOT_SPF_HOME (default ~/pinot-spf).
#
#   bash tools/pinot_spf/build.sh      # ~2.5 CPU-s (ecj over 57 files); needs ~/pinot-verify (built by /work/shared/pinot-verify/build.sh)
#
# Knobs: PINOT_MIRROR (bare git dir of apache/pinot), PINOT_VERIFY_HOME (default ~/pinot-verify),
# PINOT_SPF_HOME (default ~/pinot-spf), PINOT_REV (default: the commit pinot-verify's classes were built from; the
# two must match, as the framework calls the builder and reader).
#
# The processing package needs nothing from pinot-core outside it on the CONCAT path. The rollup aggregators
# (ObjectSerDeUtils, sketches) and the Helix lifecycle listeners do not compile here; ecj -proceedOnError still
# writes their classes, which are listed in pinot-spf/tainted-classes.txt: the driver fails (exit 3) if a run
# loaded any of them, and runs pinot-verify's own class audit (its stand-ins, its tainted classes) too.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MIRROR=${PINOT_MIRROR:-/work/.mirror/apache+pinot/repo}
VERIFY=${PINOT_VERIFY_HOME:-$HOME/pinot-verify}
PREFIX=${PINOT_SPF_HOME:-$HOME/pinot-spf}
[ -d "$VERIFY/classes" ] && [ -d "$VERIFY/lib" ] || { echo "no pinot-verify at $VERIFY (classes/, lib/)" >&2; exit 1; }
REV=${PINOT_REV:-$(cat "$VERIFY/classes/pinot-verify/pinot-commit.txt")}
G="git --git-dir=$MIRROR"
PKG=pinot-core/src/main/java/org/apache/pinot/core/segment/processing
log() { echo "[pinot-spf $(date +%H:%M:%S)] $*" >&2; }

WORK=$(mktemp -d /tmp/pinot-spf-build.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/src" "$WORK/classes/pinot-spf"
$G ls-tree -r --name-only "$REV" "$PKG" | grep '\.java$' > "$WORK/files.txt"
while read -r f; do
  mkdir -p "$WORK/src/$(dirname "$f")"
  $G show "$REV:$f" > "$WORK/src/$f"
done < "$WORK/files.txt"
log "$(wc -l < "$WORK/files.txt") sources of $PKG at ${REV:0:12}"

CP="$VERIFY/classes"
for j in "$VERIFY"/lib/*.jar; do CP="$CP:$j"; done
set +e
ecj -17 -encoding UTF-8 -proceedOnError -proc:none -nowarn -cp "$CP" -d "$WORK/classes" \
  $(sed "s|^|$WORK/src/|" "$WORK/files.txt") "$HERE/SpfConcat.java" > "$WORK/ecj.out" 2>&1
set -e
log "ecj: $(tail -1 "$WORK/ecj.out")"
if grep -E '^[0-9]+\. ERROR in ' "$WORK/ecj.out" | grep -F "$HERE/" >&2; then
  echo "SpfConcat.java does not compile (see above)" >&2
  cat "$WORK/ecj.out" >&2
  exit 1
fi

# Tainted: every class (nested ones too) of a source file with compile errors.
grep -oE '^[0-9]+\. ERROR in \S+\.java' "$WORK/ecj.out" | awk '{print $4}' | sort -u > "$WORK/problem-files.txt"
{
  echo "# classes of processing sources with compile errors (ecj -proceedOnError); a run must not load them"
  while read -r f; do
    rel=${f#"$WORK/src/pinot-core/src/main/java/"}
    base=${rel%.java}
    for c in "$WORK/classes/$base.class" "$WORK/classes/$base"'$'*.class; do
      [ -e "$c" ] || continue
      c=${c#"$WORK/classes/"}
      echo "${c%.class}" | tr / .
    done
  done < "$WORK/problem-files.txt"
} > "$WORK/classes/pinot-spf/tainted-classes.txt"
echo "$REV" > "$WORK/classes/pinot-spf/pinot-commit.txt"
log "$(wc -l < "$WORK/problem-files.txt") source(s) with compile errors: $(sed "s|.*/||" "$WORK/problem-files.txt" | paste -sd' ')"

rm -rf "$PREFIX.new"
mkdir -p "$PREFIX.new"
mv "$WORK/classes" "$PREFIX.new/classes"
cp "$WORK/ecj.out" "$PREFIX.new/ecj.out"
cat > "$PREFIX.new/pinot-spf-concat" <<EOF
#!/usr/bin/env bash
# pinot-spf-concat: built by $HERE/build.sh from Apache Pinot $REV beside $VERIFY.
H=\$(cd "\$(dirname "\$(readlink -f "\${BASH_SOURCE[0]}")")" && pwd)
export PINOT_BUFFER_LIBRARY=\${PINOT_BUFFER_LIBRARY:-org.apache.pinot.segment.spi.memory.ByteBufferPinotBufferFactory}
exec java \${PINOT_VERIFY_JAVA_OPTS:-} -javaagent:"$VERIFY/lib/audit-agent.jar" -Dlog4j2.configurationFile="$VERIFY/log4j2.xml" \\
  -cp "\$H/classes:$VERIFY/classes:$VERIFY/lib/*" pinotspf.SpfConcat "\$@"
EOF
chmod +x "$PREFIX.new/pinot-spf-concat"
rm -rf "$PREFIX"
mv "$PREFIX.new" "$PREFIX"
log "done: $PREFIX/pinot-spf-concat"
