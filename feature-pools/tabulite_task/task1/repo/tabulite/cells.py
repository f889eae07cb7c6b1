"""Helpers that deal with a single cell: converting, measuring and padding text."""

import re
import unicodedata
from decimal import Decimal
from fractions import Fraction

ALIGNMENTS = ("left", "right", "center")

_INT_RE = re.compile(r"^[+-]?\d+$")
_FLOAT_RE = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


def is_number(value):
    """Return True if *value* should be treated as a number when rendering.

    Booleans are deliberately not numbers, even though ``bool`` is a subclass
    of ``int``: a column of flags should not be right-aligned.
    """
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float, Decimal, Fraction))


def parse_value(text):
    """Convert a raw text field (e.g. from a CSV file) into a Python value.

    Integers and decimal floats become ``int`` and ``float``; a blank field
    becomes ``None``; anything else is returned unchanged.
    """
    stripped = text.strip()
    if not stripped:
        return None
    if _INT_RE.match(stripped):
        return int(stripped)
    if _FLOAT_RE.match(stripped):
        return float(stripped)
    return text


def cell_text(value):
    """Return the text shown for *value* in a table cell.

    ``None`` becomes the empty string, bytes are decoded as UTF-8 and line
    breaks and tabs are replaced by single spaces so a cell stays on one line.
    """
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    text = value if isinstance(value, str) else str(value)
    if "\n" in text or "\r" in text:
        text = " ".join(text.splitlines())
    return text.replace("\t", " ")


def char_width(char):
    """Number of terminal columns taken by a single character."""
    if unicodedata.combining(char):
        return 0
    if unicodedata.category(char) in ("Cc", "Cf"):
        return 0
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 2
    return 1


def display_width(text):
    """Number of terminal columns taken by *text* (wide CJK characters count twice)."""
    return sum(char_width(char) for char in text)


def pad(text, width, align="left"):
    """Pad *text* with spaces to *width* display columns.

    *align* is one of ``"left"``, ``"right"`` or ``"center"``; when centring,
    an odd leftover space goes to the right. Text that is already wide enough
    is returned unchanged.
    """
    if align not in ALIGNMENTS:
        raise ValueError(f"invalid alignment: {align!r}")
    gap = width - display_width(text)
    if gap <= 0:
        return text
    if align == "left":
        return text + " " * gap
    if align == "right":
        return " " * gap + text
    left = gap // 2
    return " " * left + text + " " * (gap - left)
