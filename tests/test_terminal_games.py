"""The terminal games (``nardy play``, backgammon and long nardy) as a person meets them, driven through their
input and output streams: another game after a money game, resignations asked before they are offered, help,
the board's counts and the bot's name."""

from __future__ import annotations

import re

from engine.long_nardy.board import START as LONG_START
from engine.long_nardy.render import render_long_board


def test_a_long_nardy_head_of_ten_to_fifteen_is_counted_in_digits():
    board = LONG_START.copy()
    board[24], board[21] = 12, 3
    text = render_long_board(board)
    assert "12 |" in text and "|15 " in text
    points = "".join(line[1:40] for line in text.splitlines()[1:-1])  # the board between its number lines
    assert not re.search(r"[A-F]", points) and sorted(int(n) for n in re.findall(r"\d+", points)) == [12, 15]
