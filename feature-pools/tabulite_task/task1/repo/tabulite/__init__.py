"""tabulite: small, dependency-free plain-text tables.

>>> from tabulite import format_table
>>> print(format_table([["apple", 3], ["kiwi", 12]], headers=["fruit", "qty"]))
+-------+-----+
| fruit | qty |
+=======+=====+
| apple |   3 |
| kiwi  |  12 |
+-------+-----+
"""

from .cells import cell_text, display_width, is_number, pad, parse_value
from .table import format_records, format_table, print_table

__version__ = "0.4.1"

__all__ = [
    "cell_text",
    "display_width",
    "format_records",
    "format_table",
    "is_number",
    "pad",
    "parse_value",
    "print_table",
]
