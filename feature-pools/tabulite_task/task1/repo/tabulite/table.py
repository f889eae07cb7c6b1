"""Rendering lists of rows as plain-text grid tables."""

import sys

from .cells import cell_text, display_width, is_number, pad

__all__ = ["format_table", "format_records", "print_table"]


def _as_rows(rows):
    """Materialise *rows* as a list of lists, rejecting rows that are not sequences."""
    result = []
    for index, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__iter__"):
            raise TypeError(f"row {index} is not a sequence: {row!r}")
        result.append(list(row))
    return result


def _numeric_columns(rows, ncols):
    """One flag per column: True if the column holds numbers and nothing else.

    Empty cells (``None`` or missing at the end of a short row) are ignored;
    a column with no values at all is not numeric.
    """
    flags = []
    for col in range(ncols):
        values = [row[col] for row in rows if col < len(row) and row[col] is not None]
        flags.append(bool(values) and all(is_number(value) for value in values))
    return flags


def _rule(widths, padding, fill="-", joint="+"):
    """A horizontal line such as ``+-----+----+``."""
    return joint + joint.join(fill * (width + 2 * padding) for width in widths) + joint


def _render_row(cells, widths, aligns, padding, sep="|"):
    """One line of cells such as ``| apple |   3 |``."""
    space = " " * padding
    parts = [
        space + pad(text, width, align) + space
        for text, width, align in zip(cells, widths, aligns)
    ]
    return sep + sep.join(parts) + sep


def format_table(
    rows,
    headers=None,
    *,
    padding=1,
):
    """Render *rows* as a plain-text grid table and return it as a string.

    Args:
        rows: an iterable of rows; each row is a sequence of cell values.
            Rows may have different lengths: short rows are completed with
            empty cells.
        headers: an optional sequence of column titles, or the string
            ``"firstrow"`` to use the first row of *rows* as the titles.
        padding: number of spaces on each side of every cell (default 1).

    Columns whose values are all numbers (ignoring empty cells) are
    right-aligned, every other column is left-aligned; a column's header
    follows the column's alignment.

    Returns:
        The table, lines joined with ``"\\n"`` and no trailing newline. An
        empty table (no rows and no headers) is rendered as ``""``.

    Raises:
        ValueError: if *padding* is not a non-negative integer.
        TypeError: if a row is not a sequence.
    """
    if not isinstance(padding, int) or isinstance(padding, bool) or padding < 0:
        raise ValueError("padding must be a non-negative integer")

    rows = _as_rows(rows)
    if isinstance(headers, str) and headers == "firstrow":
        headers = rows.pop(0) if rows else []
    elif headers is not None:
        headers = list(headers)

    ncols = max([len(headers or ())] + [len(row) for row in rows])
    if ncols == 0:
        return ""

    numeric = _numeric_columns(rows, ncols)
    aligns = ["right" if flag else "left" for flag in numeric]

    body = []
    for row in rows:
        cells = []
        for col in range(ncols):
            value = row[col] if col < len(row) else None
            cells.append(cell_text(value))
        body.append(cells)

    head = None
    if headers is not None:
        head = [cell_text(title) for title in headers]
        head += [""] * (ncols - len(head))

    widths = [0] * ncols
    for cells in ([head] if head is not None else []) + body:
        for col, text in enumerate(cells):
            widths[col] = max(widths[col], display_width(text))

    lines = [_rule(widths, padding)]
    if head is not None:
        lines.append(_render_row(head, widths, aligns, padding))
        lines.append(_rule(widths, padding, fill="="))
    for cells in body:
        lines.append(_render_row(cells, widths, aligns, padding))
    lines.append(_rule(widths, padding))
    return "\n".join(lines)


def format_records(records, keys=None, **options):
    """Render a list of dicts as a table whose headers are the dict keys.

    *keys* selects and orders the columns; by default every key that appears
    in any record is used, in order of first appearance. Records that lack a
    key get an empty cell. Other keyword arguments are passed to
    :func:`format_table`.
    """
    records = list(records)
    if keys is None:
        keys = []
        for record in records:
            for key in record:
                if key not in keys:
                    keys.append(key)
    else:
        keys = list(keys)
    rows = [[record.get(key) for key in keys] for record in records]
    return format_table(rows, headers=keys, **options)


def print_table(rows, headers=None, *, file=None, **options):
    """Print the table for *rows* to *file* (default ``sys.stdout``)."""
    text = format_table(rows, headers, **options)
    print(text, file=file if file is not None else sys.stdout)
