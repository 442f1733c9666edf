"""Java's own answers for the comparison tests, from one JVM per test session (tests/java/JavaOracle.java):
a question is a batch of request lines for one of tests/java's classes, answered without a JVM start each
(issue 36: a JVM per question was seconds of every run). Tests ask through the ``java_oracle`` fixture
(tests/conftest.py), which skips with the reason when there is no JDK 17 or, for JavaRules, no Joda-Time jar.
"""
from __future__ import annotations

import glob
import os
import subprocess
import threading
from pathlib import Path

JAVA_SOURCES = Path(__file__).resolve().parent / "java"


def joda_jar() -> str | None:
    """Joda-Time, for JavaRules (the jar pyspark ships), or None."""
    try:
        import pyspark
    except ImportError:
        return None
    jars = glob.glob(str(Path(pyspark.__file__).parent / "jars" / "joda-time-*.jar"))
    return jars[0] if jars else None


class JavaOracle:
    """A running JavaOracle: ``ask(class_name, mode, lines)`` -> the answer lines."""

    def __init__(self, jdk: Path, out: Path) -> None:
        self.jar = joda_jar()
        sources = [JAVA_SOURCES / "JavaOracle.java", JAVA_SOURCES / "JavaRegex.java"]
        if self.jar:
            sources.append(JAVA_SOURCES / "JavaRules.java")
        classpath = os.pathsep.join([str(out)] + ([self.jar] if self.jar else []))
        subprocess.run([str(jdk / "bin" / "javac"), "-d", str(out), "-cp", classpath, *map(str, sources)],
                       check=True)
        self._lock = threading.Lock()
        self._process = subprocess.Popen([str(jdk / "bin" / "java"), "-cp", classpath, "JavaOracle"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                         encoding="utf-8", bufsize=1 << 20)

    def ask(self, class_name: str, mode: str, lines=()) -> list[str]:
        lines = list(lines)
        assert not any("\n" in line for line in lines)
        with self._lock:
            self._process.stdin.write(f"{class_name} {mode} {len(lines)}\n" + "".join(f"{x}\n" for x in lines))
            self._process.stdin.flush()
            count = self._process.stdout.readline()
            if not count:
                raise RuntimeError(f"JavaOracle ended (exit {self._process.wait()})")
            return [self._process.stdout.readline()[:-1] for _ in range(int(count))]

    def close(self) -> None:
        self._process.stdin.close()
        self._process.wait(timeout=30)
