"""Run tests/java/JavaRules.java (Java's own answers, one request a line) with a JDK 17: shared by the tools
that write the expectation tables Java 17 computes (the tests run the same program through their fixture).

    from tools.java_math.java_runner import java_answers
    java_answers(["dstr 4636737291354636288", "exp 4607182418800017408"])
"""
from __future__ import annotations

import glob
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pinot_sink.java_check import jdk_home  # noqa: E402

SOURCE = ROOT / "tests" / "java" / "JavaRules.java"


def jdk17() -> Path:
    home = jdk_home(17)
    if home is not None:
        return home
    raise SystemExit("no JDK 17 (JAVA_HOME or /usr/lib/jvm): the tables are Java 17's answers")


def joda_jar() -> str:
    import pyspark

    jars = glob.glob(str(Path(pyspark.__file__).parent / "jars" / "joda-time-*.jar"))
    if not jars:
        raise SystemExit("no Joda-Time jar among pyspark's jars (JavaRules.java needs it to compile)")
    return jars[0]


def java_answers(requests: list[str]) -> list[str]:
    """One answer per request, from one JVM."""
    jdk, jar = jdk17(), joda_jar()
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([str(jdk / "bin" / "javac"), "-d", out, "-cp", jar, "-sourcepath", str(SOURCE.parent), str(SOURCE)], check=True)
        done = subprocess.run([str(jdk / "bin" / "java"), "-cp", f"{out}{os.pathsep}{jar}", "JavaRules"],
                              input="".join(r + "\n" for r in requests), capture_output=True, text=True, check=True)
    return done.stdout.split("\n")[:len(requests)]


def write_or_check(target: Path, text: str, source: str) -> None:
    """A generator's last step: write ``target``, or with ``--check`` on the command line fail unless it already
    holds exactly ``text`` (``source``: what a fresh run read, for the message)."""
    if "--check" in sys.argv[1:]:
        if target.read_text() != text:
            raise SystemExit(f"{target} differs from a fresh run ({source}): rerun without --check to rewrite it")
        print(f"{target}: as a fresh run writes it")
        return
    target.write_text(text)
    print(f"wrote {target}")
