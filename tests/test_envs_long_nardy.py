"""The long nardy learning environments: ``nardy/LongNardy-v0``, its vector form and ``bot.envs.env(variant="long")``,
through Gymnasium's and PettingZoo's own checks, masks, opponents, rewards (mars 2) and reset options.

Skipped with a message where the ``envs`` extra (gymnasium, pettingzoo) is not installed.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium", reason="the envs extra is not installed: pip install -e '.[envs]'")
pytest.importorskip("pettingzoo", reason="the envs extra is not installed: pip install -e '.[envs]'")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import bot.envs as envs  # noqa: E402
from bot.envs import (  # noqa: E402
    MAX_ACTIONS,
    BackgammonEnv,
    IllegalActionWarning,
    LongNardyEnv,
    LongNardyVectorEnv,
)
from bot.envs.games import Games, legal  # noqa: E402
from bot.envs.opponents import shipped_bot  # noqa: E402
from bot.equity.cube import CubeState  # noqa: E402
from bot.evaluation.checkpoint import load_network  # noqa: E402
from bot.evaluation.evaluator import NetworkEvaluator  # noqa: E402
from bot.evaluation.pubeval import Pubeval  # noqa: E402
from bot.play.levels import LevelPlayer, level_named  # noqa: E402
from engine.errors import IllegalMoveError, InvalidMoveError, InvalidOptionError, InvalidPositionError  # noqa: E402
from engine.variant import BACKGAMMON, LONG_NARDY  # noqa: E402

from conftest import board  # noqa: E402

START_ID = "AAAB//wAAAP/+"  # long nardy's start, Position ID
NETWORK = Path(__file__).resolve().parents[1] / "checkpoints" / "long_nardy.npz"


def random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.integers(int(mask.sum())))


def play_out(env: LongNardyEnv, info: dict, rng: np.random.Generator, limit: int = 400) -> tuple[float, dict, int]:
    """Random legal actions until the game ends: the last reward, info and the number of steps."""
    for steps in range(1, limit + 1):
        _, reward, over, truncated, info = env.step(random_action(info["action_mask"], rng))
        assert not truncated
        if over:
            return reward, info, steps
        assert reward == 0.0
    pytest.fail(f"no game ended in {limit} steps")


# ---------------------------------------------------------------- Gymnasium, one game


def test_gymnasiums_env_checker_passes_on_long_nardy_with_the_default_settings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make("nardy/LongNardy-v0").unwrapped)
        check_env(gym.make("nardy/LongNardy-v0", render_mode="ansi").unwrapped, skip_render_check=False)
    # The checker steps an action drawn from the whole space: almost always an illegal one, which loses the game.
    assert {warning.category for warning in caught} <= {IllegalActionWarning}, [str(w.message) for w in caught]


def test_the_long_nardy_ids_are_registered_with_gymnasium_the_vector_form_too():
    env = gym.make("nardy/LongNardy-v0")
    assert isinstance(env.unwrapped, LongNardyEnv) and env.unwrapped.variant is LONG_NARDY
    assert env.unwrapped.opponent.name == "heuristic"  # the default: long nardy's hand-made player
    vector = gym.make_vec("nardy/LongNardy-v0", num_envs=3, vectorization_mode="vector_entry_point", opponent="random")
    assert isinstance(vector, LongNardyVectorEnv) and vector.num_envs == 3 and vector.variant is LONG_NARDY
    by_id = gym.make_vec(envs.LONG_NARDY_VECTOR_ENV_ID, num_envs=2)
    assert isinstance(by_id, LongNardyVectorEnv) and by_id.opponent.name == "heuristic"
    # Any of the variant's names, through engine.variant.find_variant.
    assert BackgammonEnv("random", variant="Long-Nardy").variant is LONG_NARDY
    with pytest.raises(InvalidOptionError, match="variant 'chess': unknown"):
        BackgammonEnv("random", variant="chess")


def test_the_observation_is_the_agents_long_nardy_view_and_the_mask_its_plays():
    env = LongNardyEnv("heuristic")
    for seed in range(6):
        observation, info = env.reset(seed=seed)
        assert observation in env.observation_space and observation.shape == (30,)
        assert observation[0] == observation[25] == 0  # no bar in long nardy
        assert observation[24] == 15 and observation[12] in (-15, -14)  # the heads: 24, 12 (one left if it moved)
        dice = (int(observation[26]), int(observation[27]))
        assert dice[0] >= dice[1] >= 1 and observation[28] == 1 and observation[29] == 0
        plays = LONG_NARDY.legal_plays(observation[:26], dice)
        assert info["action_mask"].shape == (MAX_ACTIONS,) and info["action_mask"].sum() == len(plays)
        assert info["action_mask"][: len(plays)].all()
        assert {a.tobytes() for a in info["afterstates"]} == {p.afterstate.tobytes() for p in plays}


def test_the_opening_of_long_nardy_rolls_afresh_so_its_first_roll_may_be_a_double():
    rng = np.random.default_rng(0)
    doubles = {}
    for variant in (BACKGAMMON, LONG_NARDY):
        games = Games(400, variant)
        games.start(np.arange(400), rng)
        assert all(np.array_equal(b, variant.start) for b in games.boards)
        doubles[variant.name] = int((games.dice[:, 0] == games.dice[:, 1]).sum())
    assert doubles["backgammon"] == 0  # the two opening dice, never equal
    assert 30 < doubles["long_nardy"] < 110  # the starter's own roll: one in six a double


def test_a_seed_replays_the_same_long_nardy_game():
    def play(seed: int) -> list[bytes]:
        env = LongNardyEnv("random")
        rng = np.random.default_rng(0)
        observation, info = env.reset(seed=seed)
        seen = [observation.tobytes()]
        for _ in range(40):
            observation, _, over, _, info = env.step(random_action(info["action_mask"], rng))
            seen.append(observation.tobytes())
            if over:
                break
        return seen

    assert play(5) == play(5) and play(5) != play(6)


def test_an_illegal_action_loses_the_long_nardy_game_by_default_or_is_refused():
    losing = LongNardyEnv()
    losing.reset(seed=0)
    with pytest.warns(IllegalActionWarning, match="single game lost"):
        observation, reward, over, truncated, info = losing.step(MAX_ACTIONS - 1)
    assert (reward, over, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not info["action_mask"].any() and not observation[26:28].any()
    raising = LongNardyEnv(illegal_action="raise")
    raising.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 3059: not legal here, the roll has \d+ plays"):
        raising.step(MAX_ACTIONS - 1)
    with pytest.raises(ValueError, match=r"expected an integer 0\.\.3059"):
        raising.step(MAX_ACTIONS)


def test_reset_takes_a_long_nardy_position_id_or_text_and_the_dice():
    env = LongNardyEnv("random")
    for position in (START_ID, "24x15/24x15", LONG_NARDY.start):
        observation, info = env.reset(seed=1, options={"position": position, "dice": "64"})
        assert np.array_equal(observation[:26], LONG_NARDY.start) and observation[26:28].tolist() == [6, 4]
        assert env.move_for_action(0) == "24/14" and info["action_mask"].sum() == 1  # one checker off the head
    observation, _ = env.reset(seed=1, options={"position": START_ID})
    assert 1 <= observation[27] <= observation[26] <= 6  # dice rolled from the seed
    with pytest.raises(InvalidPositionError):
        env.reset(options={"position": "4HPwATDgc/ABMA"})  # a backgammon Position ID
    with pytest.raises(InvalidPositionError, match="no bar"):
        env.reset(options={"position": np.array([0] * 25 + [1], dtype=np.int8) + board({24: 14}, {12: 15})})
    with pytest.raises(InvalidPositionError, match="borne off all 15 checkers"):
        env.reset(options={"position": board({}, {12: 15})})
    with pytest.raises(ValueError, match="expected 'position' and, with it, 'dice'"):
        env.reset(options={"dice": "64"})


def test_a_long_nardy_play_maps_to_its_action_and_back():
    env = LongNardyEnv("random")
    _, info = env.reset(seed=0, options={"position": board({24: 13, 19: 1, 17: 1}, {12: 14, 7: 1}), "dice": "31"})
    count = int(info["action_mask"].sum())
    assert [env.action_for_move(env.move_for_action(a)) for a in range(count)] == list(range(count))
    action = env.action_for_move("24/21 19/18")
    expected = LONG_NARDY.parse_play("24/21 19/18", env.board, (3, 1)).afterstate
    assert np.array_equal(info["afterstates"][action], expected)
    with pytest.raises(IllegalMoveError):
        env.action_for_move("24/21 24/23")  # one checker a turn leaves the head
    with pytest.raises(InvalidMoveError):
        env.action_for_move("bar/22*")


def test_whole_games_end_with_oin_or_mars_against_each_opponent():
    rng = np.random.default_rng(3)
    for opponent in ("random", "heuristic", "beginner", "expert"):
        env = LongNardyEnv(opponent)
        _, info = env.reset(seed=3)
        reward, info, _ = play_out(env, info, rng)
        assert reward in (-2.0, -1.0, 1.0, 2.0)
        assert not info["action_mask"].any()
        board = env.board
        assert not (board > 0).any() or not (board < 0).any()  # a side has borne off all fifteen


def test_long_nardy_opponents_are_the_games_own():
    with pytest.raises(ValueError, match="opponent 'pubeval': expected 'random', 'heuristic', a level"):
        LongNardyEnv("pubeval")
    with pytest.raises(ValueError, match="scores backgammon boards, not long nardy"):
        LongNardyEnv(Pubeval())
    with pytest.raises(ValueError, match="opponent 'heuristic': expected 'random', 'pubeval', a level"):
        BackgammonEnv("heuristic")
    picked = LongNardyEnv(lambda board, dice, afterstates: len(afterstates) - 1)
    _, info = picked.reset(seed=0, options={"position": START_ID, "dice": "31"})
    picked.step(0)  # the function's play was checked and made


def test_the_expert_level_plays_the_shipped_long_nardy_networks_best_play():
    network = NetworkEvaluator(load_network(NETWORK), LONG_NARDY)
    expert = envs.opponent("expert", LONG_NARDY)
    boards = np.stack([LONG_NARDY.start, board({24: 12, 20: 2, 15: 1}, {12: 13, 9: 1, 5: 1})])
    dice = np.array([[5, 3], [6, 6]])
    moves = legal(boards, dice, LONG_NARDY)
    chosen = expert.choose(boards, dice, moves, np.random.default_rng(0))
    scores = network.afterstate_scores(boards, moves.children, moves.parent)
    for i in range(2):
        own = scores[moves.starts[i] : moves.starts[i] + moves.sizes[i]]
        assert chosen[i] == int(np.argmax(own))
    beginner = envs.opponent("beginner", LONG_NARDY)  # noise of 0.06 on the equity: not always the best play
    assert beginner.name == "nardy-beginner"
    assert (beginner.choose(boards, dice, moves, np.random.default_rng(0)) < moves.sizes).all()


@pytest.mark.parametrize("variant", [BACKGAMMON, LONG_NARDY], ids=lambda v: v.name)
def test_the_opponents_levels_play_as_the_level_player_does(variant):
    level = level_named("beginner")
    player = LevelPlayer(shipped_bot(variant), level)
    boards = np.stack([variant.start] * 6)
    dice = np.array([[3, 1], [6, 5], [4, 4], [5, 2], [6, 6], [2, 1]])
    moves = legal(boards, dice, variant)
    chosen = envs.opponent("beginner", variant).choose(boards, dice, moves, np.random.default_rng(0))
    for i in range(6):
        play = player.choose_play(boards[i], (int(dice[i, 0]), int(dice[i, 1])), CubeState())
        assert np.array_equal(moves.of(i)[chosen[i]], play.afterstate)


def test_render_draws_the_long_nardy_board_as_text_and_as_an_image():
    text = LongNardyEnv("heuristic", render_mode="ansi")
    text.reset(seed=0, options={"position": START_ID, "dice": (6, 4)})
    shown = text.render()
    assert "X: agent" in shown and "O: heuristic" in shown and "long nardy" in shown and "rolled 64" in shown
    image = LongNardyEnv("random", render_mode="rgb_array")
    image.reset(seed=0, options={"position": START_ID, "dice": (6, 4)})
    first = image.render()
    assert first.dtype == np.uint8 and first.shape == (300, 376, 3)
    image.step(0)
    assert not np.array_equal(first, image.render())


# ---------------------------------------------------------------- Gymnasium, N games in lockstep


def test_the_long_nardy_vector_env_autoresets_scores_and_masks_every_game():
    vector = LongNardyVectorEnv(8)
    rng = np.random.default_rng(0)
    observations, infos = vector.reset(seed=0)
    assert observations.shape == (8, 30) and infos["action_mask"].shape == (8, MAX_ACTIONS)
    for _ in range(400):
        actions = (rng.random(8) * infos["legal_count"]).astype(np.int64)
        observations, rewards, over, truncated, infos = vector.step(actions)
        assert not truncated.any() and not rewards[~over].any()
        if over.any():
            break
    ended = np.flatnonzero(over)
    assert len(ended) and set(np.abs(rewards[ended])) <= {1.0, 2.0}
    for i in ended:
        final = infos["final_obs"][i]
        assert not (final[:26] > 0).any() or not (final[:26] < 0).any()
        assert np.array_equal(np.maximum(observations[i, :26], 0), np.maximum(LONG_NARDY.start, 0))  # a new game
    for i in range(8):
        dice = (int(observations[i, 26]), int(observations[i, 27]))
        assert infos["legal_count"][i] == len(LONG_NARDY.legal_plays(observations[i, :26], dice))


def test_the_long_nardy_vector_env_starts_each_game_from_its_reset_option():
    vector = LongNardyVectorEnv(2, opponent="random")
    other = board({24: 14, 14: 1}, {12: 14, 8: 1})
    observations, infos = vector.reset(seed=0, options={"position": [START_ID, other], "dice": ["64", (3, 3)]})
    assert np.array_equal(observations[0, :26], LONG_NARDY.start) and np.array_equal(observations[1, :26], other)
    assert observations[:, 26:28].tolist() == [[6, 4], [3, 3]]
    assert infos["legal_count"].tolist() == [1, len(LONG_NARDY.legal_plays(other, (3, 3)))]
    with pytest.raises(InvalidPositionError):
        vector.reset(options={"position": "4HPwATDgc/ABMA"})


# ---------------------------------------------------------------- PettingZoo


def test_pettingzoos_api_and_seed_tests_pass_on_long_nardy():
    game = envs.env(variant="long")
    assert game.unwrapped.variant is LONG_NARDY and game.metadata["name"] == "nardy_long_nardy_v0"
    api_test(game)
    seed_test(functools.partial(envs.env, variant="long-nardy"))


def test_an_illegal_action_ends_the_two_agent_long_nardy_game(caplog):
    game = envs.env(variant="long", render_mode="ansi")
    game.reset(seed=0)
    assert "long nardy" in game.render()
    loser = game.agent_selection
    game.step(MAX_ACTIONS - 1)
    assert "Illegal move" in caplog.text
    assert all(game.terminations.values()) and game.rewards[loser] == -1.0
    raw = envs.raw_env(variant="long")
    raw.reset(seed=0)
    with pytest.raises(ValueError, match="not legal here"):
        raw.step(MAX_ACTIONS - 1)
