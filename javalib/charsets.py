"""Java's decoding of malformed UTF-8 (``new String(bytes, UTF_8)``, ``URLDecoder``): a U+FFFD where Python's
``replace`` puts one too, but for ED A0..BF, a UTF-16 surrogate encoded as CESU-8 writes one: Java reads the
three bytes as one character and puts one U+FFFD (for the first two when the third is not a continuation byte,
or at the end of the value), Python one for each byte (a CESU-8 emoji: 2 against 6). Java 17's answers for
636 byte strings: tests/fixtures/java/utf8_new_string.jsonl."""
from __future__ import annotations

import codecs


def _java_utf8_replace(error: UnicodeDecodeError) -> tuple[str, int]:
    data, at = error.object, error.start
    if data[at] == 0xED and at + 1 < len(data) and 0xA0 <= data[at + 1] <= 0xBF:
        return "\ufffd", at + 3 if at + 2 < len(data) and data[at + 2] & 0xC0 == 0x80 else at + 2
    return "\ufffd", error.end


JAVA_UTF8_REPLACE = "pinot-sink-java-utf8"  # bytes.decode's error handler: Java's ``new String(bytes, UTF_8)``
codecs.register_error(JAVA_UTF8_REPLACE, _java_utf8_replace)


def new_string_utf8(data: bytes) -> str:
    """``new String(data, StandardCharsets.UTF_8)``."""
    return data.decode("utf-8", JAVA_UTF8_REPLACE)
