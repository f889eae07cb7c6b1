"""Command line interface: ``python -m tabulite data.csv``."""

import argparse
import csv
import sys

from . import __version__
from .cells import parse_value
from .table import format_table


def build_parser():
    parser = argparse.ArgumentParser(
        prog="tabulite",
        description="Pretty-print a CSV file as a plain-text table.",
    )
    parser.add_argument("path", nargs="?", default="-", help="CSV file to read ('-' for standard input)")
    parser.add_argument("-d", "--delimiter", default=",", help="field delimiter (default: ',')")
    parser.add_argument("--no-header", action="store_true", help="treat the first line as data, not as titles")
    parser.add_argument("--padding", type=int, default=1, help="spaces on each side of a cell (default: 1)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def read_rows(stream, delimiter=","):
    """Read CSV records from *stream*, converting numeric fields to numbers."""
    return [[parse_value(field) for field in record] for record in csv.reader(stream, delimiter=delimiter)]


def main(argv=None, stdout=None):
    """Run the command line tool; returns the process exit status."""
    args = build_parser().parse_args(argv)
    out = stdout if stdout is not None else sys.stdout
    if args.path == "-":
        rows = read_rows(sys.stdin, args.delimiter)
    else:
        with open(args.path, newline="", encoding="utf-8") as handle:
            rows = read_rows(handle, args.delimiter)

    options = {"padding": args.padding}
    try:
        text = format_table(rows, headers=None if args.no_header else "firstrow", **options)
    except (TypeError, ValueError) as exc:
        print(f"tabulite: error: {exc}", file=sys.stderr)
        return 2
    if text:
        out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
