"""Properties of the long nardy generators on thousands of positions reached by random self-play.

The batched generator must list exactly the afterstates of the checked single-position
path; no afterstate may hold a forbidden six-block or break the head rule; checkers
are conserved; the Position ID round-trips; random games end. Positions are reached by
playing random legal plays with the batched generator itself (a few hundred games at
once), plus random boards crowded with the mover's checkers, where blocks are common.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidPositionError
from engine.long_nardy import (
    START,
    Rules,
    afterstates,
    decode_long_position_id,
    encode_long_position_id,
    flip,
    illegal_block,
    illegal_blocks,
    legal_plays,
)
from engine.long_nardy.plays import head_allowance

RULE_SETS = {"defaults": Rules(), "turn-check-46": Rules(block_check="turn", head_doubles="46")}
GAMES = 150
MAX_TURNS = 400


def self_play(rules: Rules, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Every (board, dice) met in GAMES random games played to the end, and the longest game in turns."""
    rng = np.random.default_rng(seed)
    boards = np.tile(START, (GAMES, 1))
    seen_boards, seen_dice = [], []
    for turn in range(MAX_TURNS):
        dice = rng.integers(1, 7, size=(len(boards), 2))
        seen_boards.append(boards)
        seen_dice.append(dice)
        children, parent = afterstates(boards, dice, rules)
        counts = np.bincount(parent, minlength=len(boards))
        pick = np.cumsum(counts) - counts + (rng.random(len(boards)) * counts).astype(np.int64)
        after = children[pick]
        finished = ~np.any(after > 0, axis=1)
        boards = flip(after[~finished])
        if len(boards) == 0:
            return np.concatenate(seen_boards), np.concatenate(seen_dice), turn + 1
    pytest.fail(f"{len(boards)} random games were still going after {MAX_TURNS} turns")


@pytest.fixture(scope="module", params=list(RULE_SETS), ids=list(RULE_SETS))
def reached(request):
    rules = RULE_SETS[request.param]
    boards, dice, turns = self_play(rules, seed=len(request.param))
    children, parent = afterstates(boards, dice, rules)
    return rules, boards, dice, turns, children, parent


def crowded_boards(rng: np.random.Generator, count: int) -> np.ndarray:
    """Random boards with the mover's checkers spread thinly over many points, six-blocks close at hand.

    In every other board the opponent's checkers are all still near its head (the
    mover's 7..12), so a block of the mover's anywhere ahead of them is forbidden.
    """
    boards = np.zeros((count, 26), dtype=np.int8)
    for i, b in enumerate(boards):
        trap = i % 2 == 0
        owner = rng.choice([-1, 0, 1], size=24, p=[0.2, 0.2, 0.6])
        if trap:
            owner[:] = np.where(rng.random(24) < 0.7, 1, 0)
            owner[6:12] = np.where(rng.random(6) < 0.5, -1, 0)
            owner[11] = -1
        for side in (1, -1):
            points = np.flatnonzero(owner == side) + 1
            if len(points):
                np.add.at(
                    b, rng.choice(points, rng.integers(min(len(points), 15) if side == 1 and trap else 1, 16)), side
                )
        if rng.random() < 0.2:  # a first turn: all fifteen on the head
            b[b > 0] = 0
            b[24] = 15
    return boards


def assert_same_as_single_path(boards: np.ndarray, dice: np.ndarray, rules: Rules, children, parent) -> None:
    starts = np.searchsorted(parent, np.arange(len(boards) + 1))
    for i in range(len(boards)):
        batched = sorted(c.tobytes() for c in children[starts[i] : starts[i + 1]])
        single = sorted(p.afterstate.tobytes() for p in legal_plays(boards[i], dice[i], rules))
        assert batched == single, (
            f"long nardy Position ID {encode_long_position_id(boards[i])} dice {dice[i].tolist()} {rules}: "
            f"{len(batched)} batched afterstates, {len(single)} from the single-position path"
        )


@pytest.mark.slow
def test_batched_equals_single_path_on_self_play_positions(reached):
    rules, boards, dice, _, children, parent = reached
    sample = np.random.default_rng(1).choice(len(boards), 1500, replace=False)
    sub_children, sub_parent = afterstates(boards[sample], dice[sample], rules)
    assert_same_as_single_path(boards[sample], dice[sample], rules, sub_children, sub_parent)


@pytest.mark.parametrize("rules", list(RULE_SETS.values()), ids=list(RULE_SETS))
@pytest.mark.slow
def test_batched_equals_single_path_on_crowded_boards(rules):
    rng = np.random.default_rng(5)
    boards = crowded_boards(rng, 1200)
    dice = rng.integers(1, 7, size=(len(boards), 2))
    dice[::3, 1] = dice[::3, 0]  # a third doubles
    children, parent = afterstates(boards, dice, rules)
    other = Rules(block_check="turn" if rules.block_check == "step" else "step")
    assert len(children) != len(afterstates(boards, dice, other)[0]), "the sample should exercise the block rule"
    assert_same_as_single_path(boards, dice, rules, children, parent)
    played = np.any(children != boards[parent], axis=1)
    assert not np.any(illegal_blocks(children[played])), "a play left a forbidden block"


def test_no_afterstate_has_a_forbidden_block(reached):
    _, _, _, _, children, _ = reached
    forbidden = illegal_blocks(children)
    assert not np.any(forbidden)
    sample = np.random.default_rng(2).choice(len(children), 3000, replace=False)
    assert [illegal_block(c) for c in children[sample]] == forbidden[sample].tolist()


def test_checkers_are_conserved_and_the_head_rule_holds(reached):
    rules, boards, dice, _, children, parent = reached
    before = boards[parent]
    assert np.array_equal(np.minimum(children, 0), np.minimum(before, 0)), "the opponent's checkers never move"
    mover_before = np.maximum(before, 0).sum(axis=1)
    mover_after = np.maximum(children, 0).sum(axis=1)
    assert np.all((mover_after <= mover_before) & (mover_after >= mover_before - 4))
    assert not np.any(children[:, [0, 25]]), "no bar in long nardy"
    points = np.arange(26)
    pips_moved = ((before - children).clip(0) * points).sum(axis=1) - ((children - before).clip(0) * points).sum(axis=1)
    d = dice[parent]
    most = np.where(d[:, 0] == d[:, 1], 4 * d[:, 0], d[:, 0] + d[:, 1])
    assert np.all((pips_moved >= 0) & (pips_moved <= most))
    allowance = np.array([head_allowance(int(b[24]), int(x), int(y), rules) for b, (x, y) in zip(before, d)])
    assert np.all(before[:, 24] - children[:, 24] <= allowance)
    assert np.all(np.diff(parent) >= 0)


@pytest.mark.slow
def test_position_id_round_trips(reached):
    _, boards, _, _, children, _ = reached
    sample = np.concatenate([boards[::7], children[::97]])
    for b in sample:
        position_id = encode_long_position_id(b)
        assert len(position_id) == 13
        assert np.array_equal(decode_long_position_id(position_id), b), position_id
        flipped = encode_long_position_id(flip(b))
        assert np.array_equal(decode_long_position_id(flipped), flip(b))


def test_random_games_end(reached):
    _, _, _, turns, _, _ = reached
    assert 40 <= turns < MAX_TURNS


@settings(max_examples=300, deadline=None)
@given(
    st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", min_size=13, max_size=13)
    | st.text(max_size=16)
)
def test_any_text_reads_as_a_position_id_or_raises_invalid_position(text):
    try:
        board = decode_long_position_id(text)
    except InvalidPositionError:
        return
    assert encode_long_position_id(board) == text.strip()
