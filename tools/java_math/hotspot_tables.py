"""Write javalib/hotspot_math/tables.json: the tables of HotSpot's x86_64 Math stubs that javalib/hotspot_math replays.

Two kinds of table, each from where it lives:

* the stubs' data (macroAssembler_x86_exp / _log / _log10 / _pow / _sin / _tan.cpp: ``_Tbl_addr``, ``_L_tbl``,
  ``_T_exp``, ``StubRoutines::x86::_Ctable``...), read byte for byte from the symbol table of the JDK 17's own
  ``lib/server/libjvm.so`` (Debian / Ubuntu's openjdk-17 keeps it): the bytes the running stubs read;
* the steps of ``rcpps``'s reciprocal estimate that log, log10 and pow start from, measured on this CPU by
  tools/java_math/rcpps_steps.c (every float mantissa; the top 12 bits where B steps down). The CPU's own
  table: the committed steps are AMD EPYC (Zen)'s; on another vendor's CPU ``--check`` says they differ.

    python -m tools.java_math.hotspot_tables            # rewrites the data file (JDK 17 and gcc needed)
    python -m tools.java_math.hotspot_tables --check    # fails unless a fresh run gives the committed bytes
"""
from __future__ import annotations

import json
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.java_math.java_runner import jdk17, write_or_check  # noqa: E402

TARGET = ROOT / "javalib" / "hotspot_math" / "tables.json"
STEPS_SOURCE = ROOT / "tools" / "java_math" / "rcpps_steps.c"
# table -> (libjvm.so symbol, bytes per word as the module reads them)
SYMBOLS = {
    "exp": ("_Tbl_addr", 8),  # 2**(j/64): macroAssembler_x86_exp.cpp
    "log": ("_L_tbl", 8),  # macroAssembler_x86_log.cpp
    "log10": ("_L_tbl_log10", 8),  # macroAssembler_x86_log10.cpp
    "pow_exp": ("_T_exp", 8),  # macroAssembler_x86_pow.cpp
    "pow_log2": ("_L_tbl_pow", 8),
    "sin_cos": ("_ZN12StubRoutines3x867_CtableE", 8),  # StubRoutines::x86::_Ctable (macroAssembler_x86_sin.cpp)
    "pi_inv": ("_ZN12StubRoutines3x8613_PI_INV_TABLEE", 4),  # StubRoutines::x86::_PI_INV_TABLE: 2/pi's bits
    "tan": ("_Ctable_tan", 8),  # macroAssembler_x86_tan.cpp
}
STEPS = ("log", "log10", "pow")  # rcpps_steps.c's modes ("log": no argument)


def _elf_symbols(path: Path, wanted: set[str]) -> dict[str, bytes]:
    """The bytes of the named data symbols of an ELF64 little-endian shared object (its .symtab)."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit(f"{path}: not an ELF64 little-endian file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    symtab = next((s for s in sections if s[1] == 2), None)  # SHT_SYMTAB
    if symtab is None:
        raise SystemExit(f"{path}: no symbol table (a stripped libjvm.so): the tables cannot be read from it")
    strtab = sections[symtab[6]]
    found: dict[str, bytes] = {}
    for offset in range(symtab[4], symtab[4] + symtab[5], symtab[9]):
        name_at, _info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", data, offset)
        end = data.index(b"\0", strtab[4] + name_at)
        name = data[strtab[4] + name_at:end].decode()
        if name in wanted:
            if name in found:
                raise SystemExit(f"{path}: two symbols named {name}")
            section = sections[shndx]
            start = value - section[3] + section[4]  # address -> file offset within its section
            found[name] = data[start:start + size]
    missing = wanted - set(found)
    if missing:
        raise SystemExit(f"{path}: no symbol {sorted(missing)}")
    return found


def stub_tables() -> dict[str, list[str]]:
    library = jdk17() / "lib" / "server" / "libjvm.so"
    raw = _elf_symbols(library, {symbol for symbol, _ in SYMBOLS.values()})
    tables = {}
    for table, (symbol, width) in SYMBOLS.items():
        words = [int.from_bytes(raw[symbol][i:i + width], "little") for i in range(0, len(raw[symbol]), width)]
        tables[table] = [f"{w:0{2 * width}x}" for w in words]
    return tables


def rcpps_steps() -> dict[str, list[int]]:
    with tempfile.TemporaryDirectory() as out:
        program = Path(out) / "rcpps_steps"
        subprocess.run(["gcc", "-O1", "-msse2", "-o", str(program), str(STEPS_SOURCE)], check=True)
        steps = {}
        for mode in STEPS:
            lines = subprocess.run([str(program)] + ([] if mode == "log" else [mode]), capture_output=True,
                                   text=True, check=True).stdout.split()
            mantissas = [int(m) for m in lines[0::2]]
            if any(m % (1 << 11) for m in mantissas):
                raise SystemExit(f"rcpps {mode}: a step inside a 12-bit mantissa prefix; the stubs' tables assume none")
            steps[mode] = [m >> 11 for m in mantissas]
    return steps


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return "unknown"


def render(tables: dict[str, list[str]], steps: dict[str, list[int]]) -> str:
    """One word (hex, as the stub reads it) a line; the steps a table each."""
    data = {"generator": "python -m tools.java_math.hotspot_tables", "java": "17", "rcpps_measured_on": cpu_name(),
            "tables": tables, "rcpps_steps": steps}
    return json.dumps(data, indent=1) + "\n"


def main() -> None:
    write_or_check(TARGET, render(stub_tables(), rcpps_steps()), "JDK 17's libjvm.so, this CPU's rcpps")


if __name__ == "__main__":
    main()
