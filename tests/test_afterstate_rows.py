"""The move generators' shared row, mask and hash helpers (engine.afterstate_rows) on small cases worked by hand."""

from __future__ import annotations

import numpy as np

from engine.afterstate_rows import (
    CHUNK,
    HASH,
    WIDTH,
    bits,
    first_per_key,
    hash_keys,
    in_chunks,
    merge_by_board,
    take_rows,
    to_rows,
)
from engine.board import START, flip


def test_rows_pad_boards_and_gather_them_whole():
    boards = np.stack([START, flip(START)])
    rows = to_rows(boards)
    assert rows.shape == (2, WIDTH) and not rows[:, 26:].any()
    assert np.array_equal(take_rows(rows, np.array([1, 0, 1]))[:, :26], boards[[1, 0, 1]])


def test_bits_mark_the_columns_that_are_set():
    rows = to_rows(START[None])
    assert bits(rows > 0)[0] == sum(1 << p for p in (6, 8, 13, 24))
    assert bits(rows < 0)[0] == sum(1 << p for p in (1, 12, 17, 19))


def test_equal_boards_share_a_key_and_a_step_moves_it_by_the_table():
    moved = START.copy()
    moved[[24, 18]] = [1, 1]
    keys = hash_keys(np.stack([START, START, moved]))
    assert keys[0] == keys[1] != keys[2]
    assert keys[2] == keys[0] - HASH[24] + HASH[18]


def test_first_per_key_keeps_one_entry_per_board_and_key_grouped_by_board():
    board = np.array([1, 0, 1, 0, 1])
    keys = np.array([7, 5, 7, 5, -3], dtype=np.int64)
    kept = first_per_key(board, keys, 2)
    assert sorted((int(board[i]), int(keys[i])) for i in kept) == [(0, 5), (1, -3), (1, 7)]
    assert board[kept].tolist() == sorted(board[kept].tolist())


def test_merge_by_board_interleaves_pieces_keeping_each_boards_order():
    def piece(values, board):
        rows = np.zeros((len(values), WIDTH), dtype=np.int8)
        rows[:, 0] = values
        return rows, np.array(board)

    rows, parent = merge_by_board([piece([10, 11, 20], [0, 0, 2]), piece([12, 30], [0, 3])], 4)
    assert rows[:, 0].tolist() == [10, 11, 12, 20, 30] and parent.tolist() == [0, 0, 0, 2, 3]


def test_in_chunks_renumbers_the_parents_of_later_chunks():
    def one_child_each(boards, dice):
        return boards + dice[:, :1].astype(np.int8), np.arange(len(boards))

    count = CHUNK + 5
    boards = np.zeros((count, 26), dtype=np.int8)
    children, parent = in_chunks(one_child_each, boards, np.ones((count, 2), dtype=np.int64))
    assert parent.tolist() == list(range(count)) and (children == 1).all()
