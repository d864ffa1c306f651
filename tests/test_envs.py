"""The learning environments of ``bot.envs``: Gymnasium's and PettingZoo's own checks, masks, seeding, rewards,
OpenSpiel.

Skipped with a message where the ``envs`` extra (gymnasium, pettingzoo, open_spiel) is not installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium", reason="the envs extra is not installed: pip install -e '.[envs]'")
pytest.importorskip("pettingzoo", reason="the envs extra is not installed: pip install -e '.[envs]'")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import bot.envs as envs  # noqa: E402
from bot.envs import MAX_ACTIONS, BackgammonEnv, BackgammonVectorEnv, IllegalActionWarning  # noqa: E402
from engine import START, encode_position_id, parse_move  # noqa: E402
from engine.errors import IllegalMoveError, InvalidDiceError, InvalidPositionError  # noqa: E402
from engine.plays import legal_plays  # noqa: E402
from engine.variant import find_variant  # noqa: E402

from conftest import board  # noqa: E402


def random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.integers(int(mask.sum())))


# ---------------------------------------------------------------- Gymnasium, one game


def test_gymnasiums_env_checker_passes_with_the_default_settings_and_warns_of_nothing_else():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make("nardy/Backgammon-v0").unwrapped, skip_render_check=False, skip_close_check=False)
    # The checker steps an action drawn from the whole space: almost always an illegal one, which loses the game.
    assert {warning.category for warning in caught} <= {IllegalActionWarning}, [str(w.message) for w in caught]


def test_the_ids_are_registered_with_gymnasium():
    env = gym.make("nardy/Backgammon-v0", opponent="random")
    assert isinstance(env.unwrapped, BackgammonEnv)
    vector = gym.make_vec("nardy/Backgammon-v0", num_envs=3, vectorization_mode="vector_entry_point", opponent="random")
    assert isinstance(vector, BackgammonVectorEnv) and vector.num_envs == 3
    assert isinstance(gym.make_vec(envs.VECTOR_ENV_ID, num_envs=2), BackgammonVectorEnv)


def test_the_observation_is_the_agents_view_with_its_dice_and_the_mask_its_plays():
    env = BackgammonEnv("pubeval")
    observation, info = env.reset(seed=3)
    assert observation in env.observation_space
    assert observation.dtype == np.int8 and observation.shape == (30,)
    dice = (int(observation[26]), int(observation[27]))
    assert dice[0] >= dice[1] and observation[28] == 1 and observation[29] == 0
    plays = legal_plays(observation[:26], dice)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (MAX_ACTIONS,)
    assert info["action_mask"].sum() == len(plays) and info["action_mask"][: len(plays)].all()
    assert {a.tobytes() for a in info["afterstates"]} == {p.afterstate.tobytes() for p in plays}


def test_a_seed_replays_the_same_dice_and_the_same_game():
    def play(seed: int) -> tuple[list[bytes], list[float]]:
        env = BackgammonEnv("random")
        rng = np.random.default_rng(0)
        observation, info = env.reset(seed=seed)
        seen, rewards = [observation.tobytes()], []
        for _ in range(60):
            observation, reward, over, _, info = env.step(random_action(info["action_mask"], rng))
            seen.append(observation.tobytes())
            rewards.append(reward)
            if over:
                break
        return seen, rewards

    assert play(11) == play(11)
    assert play(11)[0] != play(12)[0]


def test_an_illegal_action_loses_the_game_with_a_warning_by_default_or_is_refused_by_name():
    losing = BackgammonEnv("pubeval")
    losing.reset(seed=0)
    with pytest.warns(IllegalActionWarning, match="single game lost"):
        observation, reward, over, truncated, info = losing.step(3000)
    assert (reward, over, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not info["action_mask"].any() and not observation[26:28].any()  # no roll, no plays: the game is over
    with pytest.raises(RuntimeError, match="reset"):
        losing.step(0)
    raising = BackgammonEnv("pubeval", illegal_action="raise")
    raising.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 3000: not legal here, the roll has \d+ plays"):
        raising.step(3000)
    with pytest.raises(ValueError, match="illegal_action"):
        BackgammonEnv(illegal_action="ignore")


@pytest.mark.parametrize("action", [MAX_ACTIONS, -1, 2.0, "0", np.zeros(2, np.int64)])
def test_what_is_not_an_action_of_the_space_is_refused_even_when_illegal_actions_lose(action):
    env = BackgammonEnv("pubeval")
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused, not lost with a warning
        with pytest.raises(ValueError, match=r"expected an integer 0\.\.3059, an action of the space"):
            env.step(action)
    assert env.step(0)[1:3] == (0.0, False)  # the game goes on


def test_a_play_in_gnubg_notation_maps_to_its_action_and_back():
    env = BackgammonEnv("pubeval")
    observation, info = env.reset(seed=0, options={"position": encode_position_id(START), "dice": "31"})
    action = env.action_for_move("8/5 6/5")
    assert np.array_equal(info["afterstates"][action], parse_move("8/5 6/5", START, "31").afterstate)
    assert env.move_for_action(action) == "8/5 6/5"
    assert [env.action_for_move(env.move_for_action(a)) for a in range(16)] == list(range(16))
    with pytest.raises(IllegalMoveError):
        env.action_for_move("13/8")
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"dice": "31"})


@pytest.mark.parametrize(
    "variant, position, dice, reward",
    [
        # The agent bears off its last checker; the opponent has none off: a gammon, +2 ...
        ("backgammon", board({1: 1}, {19: 5, 20: 5, 21: 5}), "21", 2.0),
        # ... and with one of its checkers in the agent's home board, a backgammon, +3.
        ("backgammon", board({1: 1}, {3: 1, 19: 5, 20: 5, 21: 4}), "21", 3.0),
        # The opponent bears off its last checker, the agent's all in the opponent's home: -3.
        ("backgammon", board({23: 14, 22: 1}, {24: 1}), "21", -3.0),
        # Long nardy: the agent bears off its last checker, the opponent none: mars, +2 ...
        ("long", board({1: 1}, {12: 15}), "21", 2.0),
        # ... with one of the opponent's checkers off: oin, +1.
        ("long", board({1: 1}, {13: 14}), "21", 1.0),
        # The opponent bears off its last checker, the agent none: mars lost, -2.
        ("long", board({24: 15}, {13: 1}), "21", -2.0),
    ],
)
def test_the_reward_counts_gammons_and_backgammons_and_long_nardys_mars(variant, position, dice, reward):
    env = BackgammonEnv("random", variant=variant)
    env.reset(seed=0, options={"position": position, "dice": dice})
    _, got, over, truncated, info = env.step(0)
    assert (got, over, truncated) == (reward, True, False)
    assert info["action_mask"].sum() == 0


def test_render_gives_the_text_board_and_an_image():
    text = BackgammonEnv("pubeval", render_mode="ansi")
    text.reset(seed=0, options={"position": START, "dice": (3, 1)})
    assert "X: agent" in text.render() and "O: pubeval" in text.render() and "Rolled 31" in text.render()
    image = BackgammonEnv("pubeval", render_mode="rgb_array")
    image.reset(seed=0, options={"position": START, "dice": (3, 1)})
    first = image.render()
    assert first.dtype == np.uint8 and first.shape == (300, 376, 3)
    image.step(image.action_for_move("8/5 6/5"))
    assert not np.array_equal(first, image.render())


def test_opponents_by_name_evaluator_and_function_and_a_bad_one_refused():
    for opponent in ("beginner", "expert", "random", envs.opponent("pubeval"), lambda b, d, after: len(after) - 1):
        env = BackgammonEnv(opponent)
        _, info = env.reset(seed=4)
        env.step(0)
    with pytest.raises(ValueError, match="expected 'random', 'pubeval', a level"):
        BackgammonEnv("grandmaster")
    with pytest.raises(TypeError, match="opponent 42"):
        BackgammonEnv(42)
    cheat = BackgammonEnv(lambda b, d, after: len(after))
    cheat.reset(seed=1, options={"position": START, "dice": "31"})
    with pytest.raises(ValueError, match="expected an action index"):
        cheat.step(0)


# ---------------------------------------------------------------- Gymnasium, N games in lockstep


@pytest.mark.parametrize("variant", ["backgammon", "long"])
def test_the_vector_env_with_one_game_is_the_single_env(variant):
    single, vector = BackgammonEnv("random", variant=variant), BackgammonVectorEnv(1, "random", variant=variant)
    rng = np.random.default_rng(5)
    observation, info = single.reset(seed=9)
    observations, infos = vector.reset(seed=9)
    for _ in range(400):
        assert np.array_equal(observation, observations[0])
        assert np.array_equal(info["action_mask"], infos["action_mask"][0])
        action = random_action(info["action_mask"], rng)
        observation, reward, over, _, info = single.step(action)
        observations, rewards, overs, _, infos = vector.step(np.array([action]))
        assert reward == rewards[0] and over == overs[0]
        if over:
            assert np.array_equal(observation, infos["final_obs"][0])
            break
    else:
        pytest.fail("no game ended in 400 steps")


def test_the_vector_env_autoresets_and_masks_every_game():
    vector = BackgammonVectorEnv(16, opponent="pubeval")
    rng = np.random.default_rng(0)
    observations, infos = vector.reset(seed=0)
    assert infos["action_mask"].shape == (16, MAX_ACTIONS) and observations.shape == (16, 30)
    for _ in range(300):
        actions = (rng.random(16) * infos["action_mask"].sum(axis=1)).astype(np.int64)
        observations, rewards, over, truncated, infos = vector.step(actions)
        assert not truncated.any() and not rewards[~over].any()
        if over.any():
            break
    ended = np.flatnonzero(over)
    assert len(ended) and set(np.abs(rewards[ended])) <= {1.0, 2.0, 3.0}
    final = infos["final_obs"]
    assert np.array_equal(infos["_final_obs"], over)
    for i in ended:
        assert not (final[i, :26] > 0).any() or not (final[i, :26] < 0).any()  # a side has borne off all
        assert not final[i, 26:28].any()
        assert np.array_equal(np.maximum(observations[i, :26], 0), np.maximum(START, 0))  # a new game
    for i in range(16):
        dice = (int(observations[i, 26]), int(observations[i, 27]))
        assert infos["action_mask"][i].sum() == len(legal_plays(observations[i, :26], dice))
    with pytest.raises(ValueError, match="not legal here"):
        vector.step(np.full(16, MAX_ACTIONS - 1))
    with pytest.raises(ValueError, match="expected 16 integer action indices"):
        vector.step(np.zeros(3, dtype=np.int64))


def test_the_vector_env_starts_every_game_from_the_reset_options_position():
    position = encode_position_id(START)
    single, vector = BackgammonEnv("random"), BackgammonVectorEnv(1, opponent="random")
    for options in ({"position": position}, {"position": START, "dice": "31"}):
        observation, info = single.reset(seed=4, options=options)
        observations, infos = vector.reset(seed=4, options=options)
        assert np.array_equal(observations[0], observation)
        assert np.array_equal(infos["action_mask"][0], info["action_mask"])

    vector = BackgammonVectorEnv(3, opponent="pubeval")
    spread = board({13: 3, 12: 3, 11: 3, 10: 3, 9: 3}, {1: 15})
    observations, infos = vector.reset(seed=0, options={"position": [position, spread, START], "dice": "31"})
    for i, expected in enumerate((START, spread, START)):
        assert np.array_equal(observations[i, :26], expected) and observations[i, 26:28].tolist() == [3, 1]
        assert infos["legal_count"][i] == len(legal_plays(expected, (3, 1)))
    observations, _ = vector.reset(seed=0, options={"position": position, "dice": ["31", (6, 6), "21"]})
    assert observations[:, 26:28].tolist() == [[3, 1], [6, 6], [2, 1]]
    assert all(np.array_equal(o[:26], START) for o in observations)


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"reset_mask": np.ones(3, dtype=bool)}, ValueError, r"reset options \['reset_mask'\]"),
        ({"dice": "31"}, ValueError, "expected 'position' and, with it, 'dice'"),
        ({"position": ["4HPwATDgc/ABMA"] * 2}, ValueError, "'position': 2 of them for 3 games"),
        ({"position": "4HPwATDgc/ABMA", "dice": ["31"]}, ValueError, "'dice': 1 of them for 3 games"),
        ({"position": "4HPwATDgc/ABMA", "dice": "71"}, InvalidDiceError, "dice"),
        ({"position": "not a position"}, InvalidPositionError, "not a position"),
        ({"position": board({}, {1: 15})}, InvalidPositionError, "borne off all 15 checkers"),
    ],
)
def test_the_vector_env_refuses_reset_options_it_cannot_honour(options, error, message):
    vector = BackgammonVectorEnv(3, opponent="random")
    with pytest.raises(error, match=message):
        vector.reset(seed=0, options=options)


def test_legal_count_is_the_masks_prefix_and_each_steps_masks_are_the_callers():
    vector = BackgammonVectorEnv(32, opponent="random")
    rng = np.random.default_rng(4)
    _, infos = vector.reset(seed=4)
    kept = []
    ended = 0
    for _ in range(120):
        counts, masks = infos["legal_count"], infos["action_mask"]
        assert np.array_equal(counts, masks.sum(axis=1))
        assert np.array_equal(masks, np.arange(MAX_ACTIONS) < counts[:, None])  # 1 below the count, 0 from it
        kept.append((counts.copy(), masks))  # a learner's buffer holding the step's arrays as they came
        last = counts - 1  # the highest action below the count: legal
        _, _, over, _, infos = vector.step(np.where(rng.random(32) < 0.5, last, 0))
        ended += int(over.sum())
    assert ended > 0  # masks right across restarts too
    assert all(np.array_equal(masks, np.arange(MAX_ACTIONS) < counts[:, None]) for counts, masks in kept)


def test_the_legal_plays_know_where_each_board_starts_when_the_generator_grows_its_buffers(monkeypatch):
    kernels = pytest.importorskip("engine.kernels")
    from bot.envs.games import legal
    from engine import ROLLS
    from engine.movegen import numpy_afterstates

    spread = board({13: 3, 12: 3, 11: 3, 10: 3, 9: 3}, {1: 15})  # a hundred plays and more for some doubles
    boards = np.repeat(np.stack([START, spread]), len(ROLLS), axis=0)
    dice = np.tile(ROLLS, (2, 1))
    monkeypatch.setattr(kernels, "_FIRST_ROOM", 0)  # room for 32 rows a board: these doubles overflow it
    moves = legal(boards, dice)
    children, parent = numpy_afterstates(boards, dice)
    assert len(children) > 32 * len(boards)
    np.testing.assert_array_equal(moves.children, children)
    np.testing.assert_array_equal(moves.starts, np.searchsorted(parent, np.arange(len(boards))))
    np.testing.assert_array_equal(moves.sizes, np.bincount(parent, minlength=len(boards)))


# ---------------------------------------------------------------- PettingZoo


def test_pettingzoos_api_and_seed_tests_pass():
    api_test(envs.env())
    seed_test(envs.env)


def test_an_illegal_action_ends_the_two_agent_game_as_pettingzoos_classic_games_do(caplog):
    game = envs.env()
    game.reset(seed=0)
    loser = game.agent_selection
    winner = "player_1" if loser == "player_0" else "player_0"
    game.step(MAX_ACTIONS - 1)
    assert "Illegal move" in caplog.text
    assert all(game.terminations.values()) and game.rewards == {loser: -1.0, winner: 0.0}
    assert game.last()[1:3] == (-1.0, True)
    raw = envs.raw_env()
    raw.reset(seed=0)
    with pytest.raises(ValueError, match="not legal here"):
        raw.step(MAX_ACTIONS - 1)


@pytest.mark.parametrize("variant, points", [("backgammon", (1.0, 2.0, 3.0)), ("long", (1.0, 2.0))])
def test_two_agents_play_a_whole_game_and_score_it(variant, points):
    game = envs.raw_env(variant=variant)
    rules = find_variant(variant)
    game.reset(seed=2)
    rng = np.random.default_rng(2)
    rewards = {}
    for agent in game.agent_iter(max_iter=2000):
        observation, reward, terminated, truncated, _ = game.last()
        if terminated:
            rewards[agent] = reward
            game.step(None)
            continue
        other = "player_1" if agent == "player_0" else "player_0"
        assert not game.observe(other)["action_mask"].any()  # only the side on roll has plays
        seen = observation["observation"]
        assert observation["action_mask"].sum() == len(rules.legal_plays(seen[:26], (int(seen[26]), int(seen[27]))))
        game.step(random_action(observation["action_mask"], rng))
    assert rewards["player_0"] == -rewards["player_1"] and abs(rewards["player_0"]) in points


def test_the_two_agent_env_renders_the_side_on_roll():
    text = envs.env(render_mode="ansi")
    text.reset(seed=0)
    on_roll = text.agent_selection
    assert f"X: {on_roll}" in text.render() and "Rolled" in text.render()
    image = envs.env(render_mode="rgb_array")
    image.reset(seed=0)
    assert image.render().shape == (300, 376, 3)
    with pytest.raises(ValueError, match="render_mode"):
        envs.raw_env(render_mode="human")


# ---------------------------------------------------------------- OpenSpiel


def test_openspiel_states_map_to_the_engines_board_and_plays():
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed: pip install -e '.[envs]'")
    from bot.envs.openspiel import compare_rules, engine_board, turn_start

    state = pyspiel.load_game("backgammon").new_initial_state()
    assert np.array_equal(engine_board(state, 0), START) and np.array_equal(engine_board(state, 1), START)
    rng = np.random.default_rng(0)
    compared = 0
    while compared < 150:
        if state.is_terminal():
            state = pyspiel.load_game("backgammon").new_initial_state()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        if turn_start(state) is state:
            assert compare_rules(state) == (set(), set()), engine_board(state, state.current_player()).tolist()
            compared += 1
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])


def test_the_openspiel_bot_beats_openspiels_random_bot():
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed: pip install -e '.[envs]'")
    from bot.envs.openspiel import NardyBot

    game = pyspiel.load_game("backgammon")
    won = 0
    for seed, seat in ((1, 0), (2, 1), (3, 0)):
        ours = NardyBot(seat)
        bots = [ours, ours]
        bots[1 - seat] = pyspiel.make_uniform_random_bot(1 - seat, seed)
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        won += returns[seat] > 0
        assert ours.fallbacks == 0
    assert won == 3
