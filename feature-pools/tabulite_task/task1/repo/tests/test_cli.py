import io

from tabulite.__main__ import main


def test_cli_renders_csv_file(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("item,price\ntea,2.5\ncoffee,3\n", encoding="utf-8")
    out = io.StringIO()
    assert main([str(path)], stdout=out) == 0
    assert out.getvalue().splitlines() == [
        "+--------+-------+",
        "| item   | price |",
        "+========+=======+",
        "| tea    |   2.5 |",
        "| coffee |     3 |",
        "+--------+-------+",
    ]


def test_cli_no_header(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a;1\n", encoding="utf-8")
    out = io.StringIO()
    assert main(["--no-header", "-d", ";", str(path)], stdout=out) == 0
    assert out.getvalue() == "+---+---+\n| a | 1 |\n+---+---+\n"
