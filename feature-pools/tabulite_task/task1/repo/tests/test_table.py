import pytest

from tabulite import format_records, format_table, print_table


def test_basic_grid_with_headers():
    text = format_table([["apple", 3], ["kiwi", 12]], headers=["fruit", "qty"])
    assert text == "\n".join(
        [
            "+-------+-----+",
            "| fruit | qty |",
            "+=======+=====+",
            "| apple |   3 |",
            "| kiwi  |  12 |",
            "+-------+-----+",
        ]
    )


def test_without_headers_and_short_rows():
    text = format_table([["a", "b", "c"], ["d"]])
    assert text.splitlines() == [
        "+---+---+---+",
        "| a | b | c |",
        "| d |   |   |",
        "+---+---+---+",
    ]


def test_firstrow_headers_and_none_cells():
    text = format_table([["name", "score"], ["ann", None], ["bob", 7.5]], headers="firstrow")
    assert text.splitlines()[1] == "| name | score |"
    assert text.splitlines()[3] == "| ann  |       |"
    assert text.splitlines()[4] == "| bob  |   7.5 |"


def test_padding_zero():
    assert format_table([[1, "x"]], padding=0) == "+-+-+\n|1|x|\n+-+-+"


def test_invalid_padding():
    with pytest.raises(ValueError, match="padding must be a non-negative integer"):
        format_table([[1]], padding=-1)


def test_empty_table():
    assert format_table([]) == ""


def test_row_must_be_a_sequence():
    with pytest.raises(TypeError):
        format_table(["abc"])


def test_format_records_collects_keys():
    text = format_records([{"a": 1}, {"b": "x"}])
    assert text.splitlines()[1] == "| a | b |"
    assert text.splitlines()[3] == "| 1 |   |"


def test_print_table(capsys):
    print_table([[1]])
    assert capsys.readouterr().out == "+---+\n| 1 |\n+---+\n"
