"""solver.apps.batch.reading: physical lines, line endings, the CSV header, ids, hands."""

from __future__ import annotations

import io
import re
from contextlib import ExitStack

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.apps.batch import reading as R
from solver.apps.batch.errors import BatchError

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


def lines_of(data: bytes, block: int = 1 << 16) -> list[tuple[int, bytes | None]]:
    return list(R.read_lines(io.BytesIO(data), block))


def oracle(data: bytes) -> list[tuple[int, bytes | None]]:
    """The obvious reading: split at every \\r\\n, \\r or \\n; the text after the last
    ending is a line when it is not empty."""
    pieces = re.split(rb"\r\n|\r|\n", data)
    if pieces[-1] == b"":
        pieces.pop()
    out: list[tuple[int, bytes | None]] = []
    for n, piece in enumerate(pieces, 1):
        if n == 1 and piece.startswith(b"\xef\xbb\xbf"):
            piece = piece[3:]
        out.append((n, None if len(piece) > R.MAX_LINE else piece.strip()))
    return out


class Trickle(io.RawIOBase):
    """A pipe that hands out at most ``step`` bytes a read (no read1)."""

    def __init__(self, data: bytes, step: int):
        self.data, self.step = data, step

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:  # noqa: ANN001 - a writable buffer
        n = min(self.step, len(buf), len(self.data))
        buf[:n], self.data = self.data[:n], self.data[n:]
        return n


# --------------------------------------------------------------------------------------
# Physical lines
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "want"),
    [
        (b"a\nb\n", [(1, b"a"), (2, b"b")]),
        (b"a\r\nb\r\n", [(1, b"a"), (2, b"b")]),
        (b"a\rb\r", [(1, b"a"), (2, b"b")]),
        (b"a\r\nb\rc\nd", [(1, b"a"), (2, b"b"), (3, b"c"), (4, b"d")]),
        (b"\r\r\n\n x \r", [(1, b""), (2, b""), (3, b""), (4, b"x")]),
        (b"\n\r", [(1, b""), (2, b"")]),
        (b"", []),
        (b"\xef\xbb\xbf# bom\rx", [(1, b"# bom"), (2, b"x")]),
    ],
)
def test_every_ending_ends_a_line(data, want):
    for block in (1, 2, 3, 5, 1 << 16):
        assert lines_of(data, block) == want, block


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([b"a", b"b ", b"\r", b"\n", b"\r\n", b" ", b"#"]), max_size=40),
    st.integers(1, 9),
)
def test_read_lines_matches_the_obvious_split(tokens, block):
    data = b"".join(tokens)
    assert lines_of(data, block) == oracle(data)


@pytest.mark.parametrize("block", [7, 1000, 1 << 16, 1 << 20])
@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
def test_over_long_lines_are_dropped_whatever_the_ending(block, end):
    over = b"y" * (R.MAX_LINE + 1)
    fits = b"z" * R.MAX_LINE
    data = end.join([b"a", over, b"b", fits, over + b"yy", fits, b"c"]) + end + over
    got = lines_of(data, block)
    assert [n for n, _ in got] == list(range(1, 9))
    assert [None if r is None else len(r) for _, r in got] == [
        1,
        None,
        1,
        R.MAX_LINE,
        None,
        R.MAX_LINE,
        1,
        None,
    ]
    assert got == oracle(data)


def test_over_long_line_is_not_held_in_memory():
    class Endless(io.RawIOBase):
        """5 MB of one line, then an end and a hand; records the biggest read asked."""

        def __init__(self):
            self.left = 5_000_000
            self.tail = b"\r" + HAND.encode() + b"\r"

        def readable(self):
            return True

        def read(self, n=-1):
            if self.left:
                k = min(n, self.left)
                self.left -= k
                return b"x" * k
            out, self.tail = self.tail[:n], self.tail[n:]
            return out

    got = list(R.read_lines(Endless(), 1 << 16))
    assert got == [(1, None), (2, HAND.encode())]


def test_a_pipe_that_trickles():
    data = b"h1: " + HAND.encode() + b"\r\n\rh2\t" + HAND.encode() + b"\r"
    for step in (1, 2, 3, 4):
        got = list(R.read_lines(io.BufferedReader(Trickle(data, step), 8)))
        h = HAND.encode()
        assert got == oracle(data) == [(1, b"h1: " + h), (2, b""), (3, b"h2\t" + h)]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([b"ab", b"\r", b"\n", b"\r\n", b""]), max_size=30))
def test_count_lines_counts_what_read_lines_reads(tmp_path_factory, tokens):
    data = b"".join(tokens)
    path = tmp_path_factory.mktemp("count") / "in.txt"
    path.write_bytes(data)
    assert R.count_lines(path) == len(lines_of(data))


def test_count_lines_sees_crlf_across_its_blocks(tmp_path):
    path = tmp_path / "in.txt"
    data = b"x" * ((1 << 20) - 1) + b"\r\n" + b"y\r"  # the \r\n straddles 1 MiB
    path.write_bytes(data)
    assert R.count_lines(path) == len(lines_of(data)) == 2
    assert R.count_lines(tmp_path) is None  # not a regular file


def test_is_content():
    assert R.is_content(None) and R.is_content(b"As")
    assert not R.is_content(b"") and not R.is_content(b"# x")


# --------------------------------------------------------------------------------------
# Line breaks in text
# --------------------------------------------------------------------------------------


def test_escape_breaks_leaves_one_line_and_nothing_else_changed():
    text = "a" + "".join(f"{c}b" for c in R.LINE_BREAKS)
    assert len(text.splitlines()) == len(R.LINE_BREAKS) + 1
    got = R.escape_breaks(text)
    assert got.splitlines() == [got]
    assert got == "a" + "".join(f"\\u{ord(c):04x}b" for c in R.LINE_BREAKS)
    assert R.escape_breaks(got) == got and R.escape_breaks("plain id") == "plain id"
    # exactly the characters str.splitlines breaks at
    breaking = {chr(c) for c in range(0x3000) if len(f"a{chr(c)}b".splitlines()) == 2}
    assert breaking == set(R.LINE_BREAKS)


def test_bad_line_message_keeps_to_one_line():
    bad = R.BadLine(4, "x\u2028y", "expected 13 cards, got 2")
    assert bad.message() == "line 4 (id x\\u2028y): expected 13 cards, got 2"
    assert R.BadLine(5, None, "why").message() == "line 5: why"


# --------------------------------------------------------------------------------------
# CSV, ids, hands
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "spec"),
    [
        (b"id,hand", R.CsvSpec(2, 1, 0)),
        (b"hand", R.CsvSpec(1, 0, -1)),
        (b" Hand , note ,ID", R.CsvSpec(3, 0, 2)),
        (b"\xef\xbb\xbfid,hand", None),  # read_lines strips the BOM before this
        (b"id,hand,hand", None),
        (HAND.encode(), None),
        (b"\xff,hand", None),
    ],
)
def test_csv_header(header, spec):
    assert R.csv_header(header, required=False, name="x") == spec


def test_csv_header_required_for_csv_files():
    with pytest.raises(BatchError, match=r"^in\.csv: a CSV input starts with a header"):
        R.csv_header(HAND.encode(), required=True, name="in.csv")


def test_csv_rows_and_their_ids():
    spec = R.CsvSpec(3, 1, 0)
    ident, hand = R.parse_line(f'g1,"{HAND}",note', spec)
    assert ident == "g1" and len(hand) == 13
    assert R.parse_line(f',"{HAND}",x', spec)[0] is None
    with pytest.raises(BatchError, match="expected 3 CSV fields, got 2") as info:
        R.parse_line(f"g2,{HAND}", spec)
    assert info.value.line_id == "g2"


@pytest.mark.parametrize(
    ("text", "ident", "cards"),
    [
        (f"a:b: {HAND}", "a:b", f" {HAND}"),
        (f"x y\t{HAND}", "x y", HAND),
        (f"h1 {HAND}", "h1", HAND),
        (f"As {HAND[3:]}", None, f"As {HAND[3:]}"),  # an id that is card text needs ':'
        (HAND, None, HAND),
        ("lonely", None, "lonely"),
    ],
)
def test_split_id(text, ident, cards):
    assert R.split_id(text) == (ident, cards)


def test_read_hand_gives_a_hand_or_says_why_not():
    ident, hand, played = R.read_hand(3, f"h\u2028x: {HAND}".encode(), None)
    assert played is None  # a bare hand (tests/test_batch_played.py: settings)
    assert ident == "h\u2028x" and sorted(hand.tolist()) == sorted(R.parse_line(HAND)[1].tolist())
    assert R.read_hand(4, None, None) == R.BadLine(4, None, "line longer than 65536 bytes")
    assert R.read_hand(5, b"\xff" + HAND.encode(), None) == R.BadLine(
        5, None, "not UTF-8 text (bad byte at 1)"
    )
    bad = R.read_hand(6, b"k9: As As", None)
    assert isinstance(bad, R.BadLine) and (bad.id, bad.text) == ("k9", "k9: As As")
    assert "duplicate card 'As'" in bad.reason


def test_open_input(tmp_path):
    src = tmp_path / "hands.csv"
    src.write_bytes(f"# c\rid,hand\rg1,{HAND}\r".encode())
    with ExitStack() as stack:
        inp = R.open_input(src, stack)
        assert (inp.name, inp.total_lines, inp.csv_spec) == (str(src), 3, R.CsvSpec(2, 1, 0))
        assert list(inp.lines) == [(3, f"g1,{HAND}".encode())]
    stream = io.BytesIO(f"\n{HAND}\n".encode())
    with ExitStack() as stack:
        inp = R.open_input(stream, stack)
        assert (inp.name, inp.total_lines, inp.csv_spec) == ("<stdin>", None, None)
        assert list(inp.lines) == [(2, HAND.encode())]
    assert not stream.closed  # a caller's stream stays open
    with pytest.raises(BatchError, match="cannot read '.*missing.txt': No such file"):
        R.open_input(tmp_path / "missing.txt", ExitStack())
