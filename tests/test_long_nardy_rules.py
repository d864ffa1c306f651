"""Long nardy rules: every case of docs/long_nardy_rules.md (E1-E20) as a named test, and the flags.

Each case is checked on both generators: the checked single-position path
(``legal_plays``, which also gives the notation) and the batched one (``afterstates``)
must list the same afterstates. Boards are in the mover's view, built from
{point: checkers} of each side in the mover's numbering (24 = the mover's head,
12 = the opponent's head).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import board

from engine.errors import IllegalMoveError, InvalidMoveError, InvalidOptionError, InvalidPositionError
from engine.long_nardy import (
    START,
    LongPosition,
    Rules,
    afterstates,
    decode_long_position_id,
    encode_long_position_id,
    format_play,
    game_outcome,
    illegal_block,
    illegal_blocks,
    legal_plays,
    parse_long_move,
)
from engine.match import Outcome

ALL_ON_HEAD = {12: 15}  # the opponent's fifteen on its head, the mover's 12


def plays(b: np.ndarray, dice: str, rules: Rules = Rules()) -> list[str]:
    """The legal plays' notation, sorted, after checking that the batched generator finds the same afterstates."""
    found = legal_plays(b, dice, rules)
    children, parent = afterstates(b[None], np.array([[int(dice[0]), int(dice[1])]]), rules)
    assert np.all(parent == 0)
    assert sorted(c.tobytes() for c in children) == sorted(p.afterstate.tobytes() for p in found), (
        f"{encode_long_position_id(b)} {dice}: the batched generator disagrees"
    )
    return sorted(format_play(p) for p in found)


def holds(b: np.ndarray, points: range | list[int]) -> bool:
    """Whether the mover holds every point of ``points``."""
    return all(b[p] > 0 for p in points)


# ------------------------------------------------------------------ E1-E6: the head rule and its first-turn exception


def test_e1_start_66_first_turn_plays_24_18_twice_and_loses_two_sixes():
    found = legal_plays(START, "66")
    assert plays(START, "66") == ["24/18(2)"] and found[0].dice_used == 2


def test_e2_start_44_first_turn_plays_24_16_twice():
    assert plays(START, "44") == ["24/16(2)"]


def test_e3_start_33_first_turn_has_two_plays():
    assert plays(START, "33") == ["24/15 24/21", "24/18(2)"]


@pytest.mark.parametrize("dice, expected", [("11", "24/20"), ("22", "24/16"), ("55", "24/4")])
def test_e4_start_other_doubles_move_one_checker(dice, expected):
    assert plays(START, dice) == [expected]


def test_e5_not_the_first_turn_66_lets_one_checker_leave_the_head():
    # A checker left the head on an earlier turn (it stands on 18; 18/12 is the opponent's head).
    b = board({24: 14, 18: 1}, ALL_ON_HEAD)
    assert plays(b, "66") == ["24/18"]
    assert plays(b, "66", Rules(head_doubles="3456")) == ["24/18"]


def test_e6_start_31_one_checker_takes_both_dice():
    (play,) = legal_plays(START, "31")
    assert [(s.src, s.dst) for s in play.steps] == [(24, 21), (21, 20)]
    assert plays(START, "31") == ["24/20"]


# ------------------------------------------------------------------ E8, E10: the six-point block


def test_e8_block_11_to_6_is_illegal_until_an_opponent_checker_is_past_it():
    wall = {11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 6: 1, 24: 9}
    assert illegal_block(board(wall, ALL_ON_HEAD))
    assert not illegal_block(board(wall, {12: 14, 5: 1}))
    assert illegal_blocks(np.stack([board(wall, ALL_ON_HEAD), board(wall, {12: 14, 5: 1})])).tolist() == [True, False]
    # The move that would complete it (13/11) is refused; with a checker past it, it is allowed.
    before = {13: 1, 10: 1, 9: 1, 8: 1, 7: 1, 6: 1, 24: 9}
    trapped = legal_plays(board(before, ALL_ON_HEAD), "21")
    assert trapped and not any(holds(p.afterstate, range(6, 12)) for p in trapped)
    plays(board(before, ALL_ON_HEAD), "21")
    free = legal_plays(board(before, {12: 14, 5: 1}), "21")
    assert any(holds(p.afterstate, range(6, 12)) for p in free)


def test_e10_block_across_the_seam_3_2_1_24_23_22_is_illegal():
    wall = {3: 1, 2: 1, 1: 1, 24: 10, 23: 1, 22: 1}
    assert illegal_block(board(wall, ALL_ON_HEAD))
    assert not illegal_block(board({3: 1, 2: 1, 1: 1, 24: 10, 23: 1, 20: 1, 13: 1}, ALL_ON_HEAD))
    before = {3: 1, 2: 1, 1: 1, 24: 10, 23: 1, 20: 1}
    found = legal_plays(board(before, ALL_ON_HEAD), "25")
    assert found and not any(holds(p.afterstate, [3, 2, 1, 24, 23, 22]) for p in found)
    plays(board(before, ALL_ON_HEAD), "25")


# ------------------------------------------------------------------ E12, E13: most dice, the larger die


def test_e12_only_one_die_playable_the_larger_is_played():
    assert plays(board({13: 1}, {6: 15}), "61") == ["13/7"]


def test_e13_only_the_smaller_die_can_be_played():
    assert plays(board({9: 1}, {1: 8, 4: 7}), "53") == ["9/6"]


# ------------------------------------------------------------------ E14-E19: bear-off


def test_e14_fifteen_on_6_roll_65_bears_off_one_and_moves_one_inside():
    (play,) = legal_plays(board({6: 15}, {13: 15}), "65")
    assert play.afterstate[6] == 13 and play.afterstate[1] == 1 and format_play(play) == "6/1 6/off"
    assert plays(board({6: 15}, {13: 15}), "65") == ["6/1 6/off"]


def test_e16_two_on_6_roll_33_bears_both_off():
    (play,) = legal_plays(board({6: 2}, {13: 15}), "33")
    assert play.dice_used == 4 and not np.any(play.afterstate > 0)
    assert plays(board({6: 2}, {13: 15}), "33") == ["6/off(2)"]


def test_e17_bear_off_starts_with_the_die_left_when_the_last_checker_comes_home():
    b = board({6: 14, 8: 1}, {13: 15})
    play = parse_long_move("8/6 6/off", b, "62")  # the same board as 8/2/off, listed once
    assert play.afterstate[6] == 14 and play.afterstate[8] == 0 and play.dice_used == 2
    assert plays(b, "62") == ["8/2 6/4", "8/off"]


def test_e19_a_lone_checker_that_cannot_bear_off_must_move_inside():
    (play,) = legal_plays(board({6: 1}, {13: 15}), "21")
    assert play.afterstate[3] == 1 and play.dice_used == 2
    assert plays(board({6: 1}, {13: 15}), "21") == ["6/3"]


# ------------------------------------------------------------------ E20: oin and mars


def test_e20_mars_when_the_loser_has_none_off_else_oin():
    assert game_outcome(board({}, {13: 15})) == Outcome.GAMMON  # mars: 2 points
    assert game_outcome(board({}, {13: 14})) == Outcome.SINGLE  # oin: 1 point
    assert game_outcome(board({13: 3}, {})) == Outcome.SINGLE  # either side's view
    with pytest.raises(InvalidPositionError, match="exactly one side"):
        game_outcome(board({6: 1}, {13: 15}))


# ------------------------------------------------------------------ the flags and other rules


def test_head_doubles_flag_without_3_3_lets_one_checker_leave():
    assert plays(START, "33", Rules(head_doubles="46")) == ["24/15"]
    assert plays(START, "66", Rules(head_doubles="")) == ["24/18"]


def test_block_check_step_refuses_a_block_formed_on_the_way_turn_allows_it():
    # 24/22 would close 3, 2, 1, 24, 23, 22; every 2 from the head passes 22.
    b = board({3: 1, 2: 1, 1: 1, 24: 10, 23: 1, 20: 1}, ALL_ON_HEAD)
    step = plays(b, "22", Rules(block_check="step"))
    turn = plays(b, "22", Rules(block_check="turn"))
    assert "24/16" not in step and "24/16" in turn
    assert all(not illegal_block(p.afterstate) for p in legal_plays(b, "22", Rules(block_check="turn")))


def test_block_check_step_allows_the_order_that_never_forms_the_block():
    b = board({3: 1, 2: 1, 1: 1, 24: 10, 23: 1, 20: 1}, ALL_ON_HEAD)
    (play,) = [p for p in legal_plays(b, "52") if format_play(p).startswith("24/17")]
    assert [(s.src, s.dst) for s in play.steps] == [(24, 19), (19, 17)]


def test_a_point_with_one_opponent_checker_is_closed_for_landing_but_passed_over():
    b = board({24: 15}, {20: 1, 12: 14})
    assert plays(b, "41") == ["24/19"]  # 24/20 is closed, 24/23/19 passes it


def test_no_legal_play_returns_the_board_itself():
    b = board({13: 1}, {7: 7, 12: 1, 11: 7})  # 13/7 and 13/12 are both closed
    (play,) = legal_plays(b, "61")
    assert play.steps == () and np.array_equal(play.afterstate, b)
    children, _ = afterstates(b[None], np.array([[6, 1]]))
    assert len(children) == 1 and np.array_equal(children[0], b)


def test_rules_refuse_unknown_flags():
    for bad in (
        {"opening": "modern"},
        {"block_check": "never"},
        {"cube": "triple"},
        {"head_doubles": "37"},
        {"head_doubles": [True]},
        {"last_roll_draw": "yes"},
    ):
        with pytest.raises(InvalidOptionError, match="long nardy rules"):
            Rules(**bad)  # type: ignore[arg-type]


# ------------------------------------------------------------------ boards, IDs and notation


def test_start_position_id_and_bad_ids():
    assert encode_long_position_id(START) == "AAAB//wAAAP/+"
    assert LongPosition.from_id("AAAB//wAAAP/+") == LongPosition(START)
    for bad in ("4HPwATDgc/ABMA", "AAAB//wAAAP/", "AAAB//wAAA*/+", "/////////////", 7):
        with pytest.raises(InvalidPositionError, match="long nardy Position ID"):
            decode_long_position_id(bad)  # type: ignore[arg-type]


def test_a_board_with_a_bar_is_refused():
    b = START.copy()
    b[25] = 1
    b[24] = 14
    with pytest.raises(InvalidPositionError, match="no bar"):
        LongPosition(b)
    with pytest.raises(InvalidPositionError):
        legal_plays(b, "31")


def test_parse_long_move_reads_steps_and_explains_refusals():
    assert format_play(parse_long_move("24/21 21/20", START, "31")) == "24/20"
    assert format_play(parse_long_move("24/18 24/18", START, "66")) == "24/18(2)"
    with pytest.raises(IllegalMoveError, match="only one checker may leave the head"):
        parse_long_move("24/18 24/18", START, "66", Rules(head_doubles=""))
    with pytest.raises(IllegalMoveError, match="point 12 is held by the opponent"):
        parse_long_move("24/18/12", START, "66")
    with pytest.raises(InvalidMoveError, match="no bar"):
        parse_long_move("bar/22", START, "31")
    with pytest.raises(InvalidMoveError, match="no hitting"):
        parse_long_move("24/21*", START, "31")
