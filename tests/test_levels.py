"""Playing levels (bot.play.levels): gnubg's settings, noise fixed by the position, the noise's size, the doors."""

from __future__ import annotations

import io

import numpy as np
import pytest

from bot.equity.cube import CubeState
from bot.doors.cli import run
from bot.facade import Bot
from bot.play.levels import LEVELS, InvalidLevelError, LevelPlayer, board_noise, level_named
from bot.play.match_play import BotPlayer, play_match
from engine.board import START
from engine.plays import legal_plays


@pytest.fixture(scope="module")
def bot() -> Bot:
    return Bot.load()


def test_levels_are_gnubgs():
    assert list(LEVELS) == ["beginner", "casual", "intermediate", "advanced", "expert", "world-class"]
    assert [lv.noise for lv in LEVELS.values()] == [0.06, 0.05, 0.04, 0.015, 0.0, 0.0]
    assert LEVELS["world-class"].plies == 2 and level_named("World Class") is LEVELS["world-class"]
    with pytest.raises(InvalidLevelError, match="grandmaster"):
        level_named("grandmaster")


def test_board_noise_is_a_function_of_the_position():
    boards = np.stack([p.afterstate for p in legal_plays(START, (6, 4))])
    first, again = board_noise(boards, "x", 0.06), board_noise(boards[::-1], "x", 0.06)[::-1]
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, board_noise(boards, "y", 0.06))


def test_board_noise_has_the_levels_spread():
    rng = np.random.default_rng(0)
    boards = rng.integers(-2, 3, size=(4000, 26)).astype(np.int8)
    noise = board_noise(boards, "beginner", 0.06)
    assert abs(noise.mean()) < 0.005 and noise.std() == pytest.approx(0.06, rel=0.06)


def test_deterministic_level_plays_the_same_position_the_same_way(bot):
    player = LevelPlayer(bot, LEVELS["beginner"])
    plays = {str(player.choose_play(START, (6, 2), CubeState()).afterstate.tolist()) for _ in range(3)}
    assert len(plays) == 1


def test_noise_makes_beginner_leave_the_best_play_sometimes(bot):
    expert, beginner = LevelPlayer(bot, LEVELS["expert"]), LevelPlayer(bot, LEVELS["beginner"])
    rolls = [(a, b) for a in range(1, 7) for b in range(1, a)]
    differ = sum(
        not np.array_equal(
            expert.choose_play(START, r, CubeState()).afterstate, beginner.choose_play(START, r, CubeState()).afterstate
        )
        for r in rolls
    )
    best = [bot.best_play(START, r).afterstate for r in rolls]
    assert all(np.array_equal(expert.choose_play(START, r, CubeState()).afterstate, b) for r, b in zip(rolls, best))
    assert 1 <= differ < len(rolls)


def test_a_levelled_bot_plays_a_match(bot):
    players = (BotPlayer(bot, level=LEVELS["casual"], name="a"), BotPlayer(bot, level=LEVELS["expert"], name="b"))
    match = play_match(players, 1, np.random.default_rng(4))
    assert match.state.is_over


def test_the_doors_take_a_level():
    out = io.StringIO()
    assert (
        run(
            ["match", "--length", "1", "--level", "beginner", "--opponent", "pubeval", "--seed", "1"],
            stdout=out,
            stderr=io.StringIO(),
        )
        == 0
    )
    assert "beginner" in out.getvalue()
    err = io.StringIO()
    assert run(["play", "--level", "nobody"], stdin=io.StringIO("quit\n"), stdout=io.StringIO(), stderr=err) == 2
    out = io.StringIO()
    assert (
        run(["play", "--level", "casual", "--seed", "2"], stdin=io.StringIO("quit\n"), stdout=out, stderr=io.StringIO())
        == 0
    )


def test_a_noisy_long_nardy_levels_cube_is_long_nardys_model_at_a_match_score(monkeypatch):
    """The noise moves P(win) only: a vanishing shift gives the long-nardy bot's own decision, with long nardy's
    match equity table and cube efficiency, not backgammon's."""
    from engine.variant import LONG_NARDY

    bot = Bot.load(variant="long_nardy")
    board = LONG_NARDY.start.copy()
    state = CubeState(match_length=5, score=(2, 3))
    player = LevelPlayer(bot, LEVELS["beginner"])
    monkeypatch.setattr(player, "_noise", lambda board, salt: np.array([1e-12]))
    noisy, own = player.cube_decision(board, state), bot.cube_decision(board, state)
    assert noisy.no_double == pytest.approx(own.no_double, abs=1e-9)
    assert noisy.double_take == pytest.approx(own.double_take, abs=1e-9)
