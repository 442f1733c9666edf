"""Fail with one clear line when Java is missing or older than Spark 4 needs (17).

Run as ``python -m pinot_sink.java_check`` before anything starts a JVM, so a user sees the fix
instead of a py4j stack trace.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

MIN_JAVA = 17
FIX = "install a JDK 17 or newer (Debian/Ubuntu: apt-get install openjdk-17-jre-headless) or set JAVA_HOME"


def java_executable() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("java")


def java_major_version(java: str) -> int | None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major  # "1.8" means Java 8


def jdk_home(major: int = 17) -> Path | None:
    """A JDK (with javac) of this major version, from JAVA_HOME or /usr/lib/jvm, or None. The suite and the
    table makers compile small Java programs to ask Java itself (JDK 17: the JVM Pinot runs)."""
    for home in [os.environ.get("JAVA_HOME", "")] + sorted(glob.glob("/usr/lib/jvm/*"), reverse=True):
        javac = Path(home) / "bin" / "javac"
        if home and javac.exists():
            out = subprocess.run([str(javac), "-version"], capture_output=True, text=True)
            if (out.stdout + out.stderr).split()[-1].split(".")[0] == str(major):
                return Path(home)
    return None


def problem() -> str | None:
    """The one-line problem with the local Java, or None when Spark can start."""
    java = java_executable()
    if java is None:
        return f"pinot-sink: Java was not found; Spark 4 needs Java {MIN_JAVA}+: {FIX}"
    major = java_major_version(java)
    if major is None:
        return f"pinot-sink: could not read the version of {java}; Spark 4 needs Java {MIN_JAVA}+: {FIX}"
    if major < MIN_JAVA:
        return f"pinot-sink: Java {major} found at {java}, Spark 4 needs Java {MIN_JAVA}+: {FIX}"
    return None


def main() -> int:
    message = problem()
    if message:
        print(message, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
