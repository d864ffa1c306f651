"""The scalar legal-play generator against GNU Backgammon's answers, and its rules one by one."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import load_fixture
from engine.board import START, flip
from engine.errors import InvalidDiceError, InvalidPositionError
from engine.plays import Play, Step, legal_plays, partial_plays
from engine.position_id import decode_position_id, encode_position_id


def board(points: dict[int, int]) -> np.ndarray:
    b = np.zeros(26, dtype=np.int8)
    for p, n in points.items():
        b[p] = n
    return b


def next_ids(plays: list[Play]) -> set[str]:
    return {encode_position_id(flip(p.afterstate)) for p in plays}


@pytest.mark.slow
def test_all_movegen_fixtures():
    for record in load_fixture("movegen.jsonl"):
        b = decode_position_id(record["position_id"])
        plays = legal_plays(b, record["dice"])
        expected = set(record["afterstates"])
        if not expected:
            ok = len(plays) == 1 and plays[0].steps == () and np.array_equal(plays[0].afterstate, b)
        else:
            ok = next_ids(plays) == expected and len(plays) == len(expected)
        assert ok, (
            f"{record['position_id']} dice {record['dice']}: "
            f"missing {sorted(expected - next_ids(plays))}, extra {sorted(next_ids(plays) - expected)}"
        )


def test_opening_31_steps():
    plays = legal_plays(START, "31")
    assert len(plays) == 16
    point = [p for p in plays if encode_position_id(flip(p.afterstate)) == "sGfwATDgc/ABMA"]
    assert len(point) == 1
    assert point[0].steps == (Step(8, 5, False), Step(6, 5, False))


def test_steps_reproduce_afterstate():
    b = decode_position_id("zGbiIQgxH/AAWA")
    for dice in [(6, 6), (5, 2), (1, 1), (4, 3)]:
        for play in legal_plays(b, dice):
            after = b.astype(int)
            for src, dst, hit in play.steps:
                after[src] -= 1
                if dst:
                    if hit:
                        assert after[dst] == -1
                        after[dst] = 0
                        after[0] -= 1
                    after[dst] += 1
            assert np.array_equal(after, play.afterstate)


def test_bar_checkers_enter_first():
    b = board({25: 2, 24: 2, 13: 5, 6: 4, 19: -5, 12: -5, 1: -2})
    plays = legal_plays(b, (5, 5))
    assert plays and all(len(p.steps) == 4 for p in plays)
    for play in plays:
        assert [s.src for s in play.steps[:2]] == [25, 25]
    # One checker on the bar that cannot enter: nothing else may move.
    b[25], b[24] = 1, 3
    b[20] = -2
    assert legal_plays(b, (5, 5))[0].steps == ()


def test_blocked_entry_no_play():
    b = board({25: 1, 24: 2, 19: -2, 20: -2, 21: -2, 22: -2, 23: -2, 18: -5})
    plays = legal_plays(b, (6, 5))
    assert len(plays) == 1 and plays[0].steps == ()
    assert np.array_equal(plays[0].afterstate, b)


def test_hit_sends_checker_to_bar():
    b = board({13: 1, 10: -1, 1: -1})
    play = next(p for p in legal_plays(b, (3, 2)) if p.steps[0] == Step(13, 10, True))
    assert play.afterstate[0] == -1 and play.afterstate[10] in (0, 1)


def test_larger_die_when_only_one_can_be_played():
    b = board({20: 1, 9: -2, 10: -2})  # 20/14 then 14/9 blocked; 20/15 then 15/9 blocked
    plays = legal_plays(b, (6, 5))
    assert [p.steps for p in plays] == [(Step(20, 14, False),)]
    b = board({20: 1, 14: -2, 9: -2})  # only the 5 can be played: then it must be
    assert [p.steps for p in legal_plays(b, (6, 5))] == [(Step(20, 15, False),)]


def test_bear_off_rules():
    b = board({5: 1, 3: 2})
    ids = {tuple(p.steps) for p in legal_plays(b, (6, 1))}
    assert (Step(5, 0, False), Step(3, 2, False)) in ids
    # A larger die bears off only from the highest point.
    b = board({4: 1, 2: 1})
    assert all(p.steps[0] != Step(2, 0, False) for p in legal_plays(b, (6, 5)))
    # No bearing off with a checker outside the home board.
    b = board({8: 1, 3: 1})
    for play in legal_plays(b, (2, 1)):
        assert all(s.dst != 0 for s in play.steps)


def test_partial_plays_include_fewer_dice():
    plays = partial_plays(START, (3, 1))
    assert {p.dice_used for p in plays} == {0, 1, 2}


def test_bad_input():
    with pytest.raises(InvalidDiceError):
        legal_plays(START, (0, 3))
    with pytest.raises(InvalidPositionError):
        legal_plays(np.zeros(25), (1, 2))
