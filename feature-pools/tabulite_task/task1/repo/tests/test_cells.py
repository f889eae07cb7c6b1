from decimal import Decimal

import pytest

from tabulite.cells import cell_text, display_width, is_number, pad, parse_value


def test_is_number():
    assert is_number(3) and is_number(2.5) and is_number(Decimal("1.1"))
    assert not is_number(True)
    assert not is_number("3")


def test_parse_value():
    assert parse_value("42") == 42
    assert parse_value("-1.5e3") == -1500.0
    assert parse_value("  ") is None
    assert parse_value("n/a") == "n/a"


def test_cell_text():
    assert cell_text(None) == ""
    assert cell_text(b"caf\xc3\xa9") == "café"
    assert cell_text("two\nlines") == "two lines"


def test_display_width_counts_wide_characters():
    assert display_width("abc") == 3
    assert display_width("日本") == 4


@pytest.mark.parametrize(
    "align, expected",
    [("left", "ab   "), ("right", "   ab"), ("center", " ab  ")],
)
def test_pad(align, expected):
    assert pad("ab", 5, align) == expected


def test_pad_rejects_unknown_alignment():
    with pytest.raises(ValueError, match="invalid alignment: 'middle'"):
        pad("ab", 5, "middle")
