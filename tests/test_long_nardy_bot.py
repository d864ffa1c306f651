"""The long nardy bot: its encoding, self-play training through the common pipeline, move choice and doors."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import torch

from bot.evaluation.checkpoint import CheckpointError, load_checkpoint, load_network
from bot.doors.cli import run
from bot.evaluation.encoding import get_encoding
from bot.evaluation.evaluator import NetworkEvaluator, RandomEvaluator, choose_afterstates
from engine.variant import BACKGAMMON, LONG_NARDY, find_variant, long_nardy_variant
from bot.evaluation.long_nardy_encoding import swapped_columns
from bot.evaluation.long_nardy_heuristic import HeuristicPlayer
from bot.facade import Bot, default_long_nardy_checkpoint
from bot.evaluation.network import Network, NetworkConfig
from engine.long_nardy import START, Rules, encode_long_position_id, flip, legal_plays
from training.__main__ import main as training_main
from training.config import Config, ConfigError, config_from_dict, load_config
from training.evaluate import evaluate
from training.torch_network import ValueNetwork
from training.selfplay import SelfPlay
from training.train import LATEST, train

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
START_ID = encode_long_position_id(START)


def quick(**changes) -> Config:
    return load_config(CONFIGS / "long_nardy_quick.toml").replace(**changes)


def self_play_boards(count: int, seed: int = 0) -> np.ndarray:
    """Boards (side on roll's view) of random long nardy games, every stage of the game among them."""
    rng = np.random.default_rng(seed)
    player = RandomEvaluator(rng, LONG_NARDY)
    boards = np.tile(START, (16, 1))
    seen: list[np.ndarray] = []
    while len(seen) * len(boards) < count:
        chosen = choose_afterstates(player, boards, rng.integers(1, 7, size=(len(boards), 2)))
        chosen[~(chosen > 0).any(axis=1)] = START  # a finished game starts again
        boards = flip(chosen)
        seen.append(boards.copy())
    return np.concatenate(seen)[:count]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A run directory of the quick long nardy config, trained for seconds (so the tests on it are slow)."""
    run_dir = tmp_path_factory.mktemp("long_nardy_run")
    train(quick(eval_every=10**6), run_dir)
    return run_dir


def test_encoding_shape_and_names():
    encoding = get_encoding("long_nardy")
    assert encoding.game == "long_nardy" and get_encoding("extended").game == "backgammon"
    features = encoding.encode(START[None])
    assert features.shape == (1, encoding.size) and features.dtype == np.float32
    assert len(encoding.global_names) == encoding.global_size
    assert np.isfinite(features).all()


def test_encoding_of_the_flipped_board_swaps_the_sides_columns():
    encoding = get_encoding("long_nardy")
    boards = self_play_boards(400)
    # equal up to float32 rounding of the pip sums, which add the same terms in another order
    assert np.allclose(encoding.encode(flip(boards)), encoding.encode(boards)[:, swapped_columns()], atol=1e-6)
    start = encoding.encode(START[None])[0]
    assert np.array_equal(start, start[swapped_columns()])  # the start is the same for both sides


def test_numpy_network_serves_what_torch_trains_on_long_nardy_boards():
    config = NetworkConfig("long_nardy", (8,))
    torch.manual_seed(0)
    trainer = ValueNetwork(config)
    served = Network(config, {name: value.detach().numpy() for name, value in trainer.state_dict().items()})
    boards = self_play_boards(300, seed=1)
    assert np.allclose(served.probabilities(boards), trainer.probabilities(boards), atol=1e-5)


def test_game_key_must_match_the_encoding():
    with pytest.raises(ConfigError, match="network.encoding"):
        config_from_dict({"game": "long_nardy"})
    with pytest.raises(ConfigError, match="network.encoding"):
        config_from_dict({"network": {"encoding": "long_nardy"}})
    with pytest.raises(ConfigError, match="'game'"):
        config_from_dict({"game": "chess"})
    assert quick().game == "long_nardy" and load_config(CONFIGS / "long_nardy.toml").game == "long_nardy"


def test_games_give_mars_and_never_backgammons():
    won = np.zeros((2, 26), dtype=np.int8)
    won[0, 5] = -15  # the loser has borne off none: mars
    won[1, 5] = -14
    assert LONG_NARDY.winning_points(won).tolist() == [2, 1]
    assert LONG_NARDY.finished_probabilities(won).tolist() == [[1, 1, 0, 0, 0], [1, 0, 0, 0, 0]]
    assert find_variant("backgammon") is BACKGAMMON
    assert long_nardy_variant(Rules(opening="sport")).opening_doubles is False


def test_self_play_plays_long_nardy_to_the_end():
    evaluator = NetworkEvaluator(ValueNetwork(NetworkConfig("long_nardy", (8,))), LONG_NARDY)
    samples = SelfPlay(8, 0.7, 0.0, np.random.default_rng(0), LONG_NARDY).play(evaluator, 1)
    assert samples.games >= 1 and samples.results[2] == 0  # no backgammons in long nardy
    assert np.array_equal(samples.boards[0], START) and not samples.boards[:, [0, 25]].any()
    assert np.allclose(samples.targets.sum(axis=1), 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="evaluator of backgammon"):
        SelfPlay(8, 0.7, 0.0, np.random.default_rng(0), LONG_NARDY).play(NetworkEvaluator(evaluator.network), 1)


@pytest.mark.slow
def test_smoke_run_writes_checkpoints_and_resumes(trained, tmp_path):
    names = sorted(p.name for p in trained.iterdir())
    assert LATEST in names and "config.toml" in names and any(n.startswith("games-") for n in names)
    assert load_config(trained / "config.toml") == quick(eval_every=10**6)
    played = load_checkpoint(trained / LATEST)["training"]["games"]
    assert played >= quick().games
    resumed_dir = tmp_path / "resumed"
    resumed_dir.mkdir()
    (resumed_dir / LATEST).write_bytes((trained / LATEST).read_bytes())
    train(quick(games=played + 100, eval_every=10**6), resumed_dir, resume=True)
    assert load_checkpoint(resumed_dir / LATEST)["training"]["games"] >= played + 100


@pytest.mark.slow
def test_a_network_trained_for_seconds_beats_a_random_player(trained):
    player = Bot.load(trained / LATEST, variant="long").evaluator
    result = evaluate(player, RandomEvaluator(np.random.default_rng(3), LONG_NARDY), 100, seed=5)
    assert result.ppg > 0.0, result.summary()


def test_the_heuristic_player_beats_a_random_player():
    result = evaluate(HeuristicPlayer(), RandomEvaluator(np.random.default_rng(4), LONG_NARDY), 60, seed=6)
    assert result.win_rate > 0.7, result.summary()


def test_players_of_different_games_do_not_meet():
    with pytest.raises(ValueError, match="long_nardy player against a backgammon player"):
        evaluate(HeuristicPlayer(), RandomEvaluator(np.random.default_rng(0)), 2, seed=0)


@pytest.mark.parametrize("plies", [0, 1])
@pytest.mark.slow
def test_the_bot_picks_a_legal_play_and_ranks_them_all(trained, plies):
    bot = Bot.load(trained / LATEST, variant="long")
    for board in self_play_boards(40, seed=2)[::8]:
        for dice in ((3, 3), (6, 5), (2, 1)):
            legal = {play.afterstate.tobytes() for play in legal_plays(board, dice)}
            assert bot.best_play(board, dice, plies).afterstate.tobytes() in legal
            ranked = bot.rank_plays(board, dice, plies)
            assert len(ranked) == len(legal)
            assert [r.equity for r in ranked if r.plies == ranked[0].plies] == sorted(
                (r.equity for r in ranked if r.plies == ranked[0].plies), reverse=True
            )
            assert all(0.0 <= p <= 1.0 for r in ranked for p in r.probabilities)


def test_a_backgammon_network_is_not_loaded_as_a_long_nardy_one(tmp_path):
    from bot.evaluation.checkpoint import export_numpy

    config = NetworkConfig("extended", (4,))
    export_numpy(tmp_path / "bg.npz", config, ValueNetwork(config).state_dict())
    with pytest.raises(CheckpointError, match="not a long nardy one"):
        Bot.load(tmp_path / "bg.npz", variant="long")
    assert load_network(tmp_path / "bg.npz").encoding.game == "backgammon"


@pytest.mark.slow
def test_hint_door(trained):
    out, err = io.StringIO(), io.StringIO()
    status = run(
        ["hint", "--game", "long-nardy", START_ID, "31", "--checkpoint", str(trained / LATEST)], stdout=out, stderr=err
    )
    assert status == 0, err.getvalue()
    assert "24/20" in out.getvalue() and START_ID in out.getvalue()
    status = run(
        ["hint", "--game", "long-nardy", START_ID, "--checkpoint", str(trained / LATEST)], stdout=out, stderr=err
    )
    assert status == 0, err.getvalue()
    assert "Cube decision (0-ply), no dice rolled" in out.getvalue() and "win mars" in out.getvalue()


@pytest.mark.slow
def test_play_door_plays_the_bot_and_quits(trained):
    out = io.StringIO()
    status = run(
        ["play", "--game", "long-nardy", "--seed", "1", "--checkpoint", str(trained / LATEST)],
        stdin=io.StringIO("moves\nhint\nquit\n"),
        stdout=out,
        stderr=io.StringIO(),
    )
    assert status == 0
    text = out.getvalue()
    assert "long nardy, money" in text and "Bye. Score: you 0, nardy 0 (money)" in text


@pytest.mark.slow
def test_training_evaluate_command_knows_the_game(trained, capsys):
    checkpoint = str(trained / LATEST)
    assert training_main(["evaluate", "--checkpoint", checkpoint, "--opponent", "heuristic", "--set", "games=4"]) == 0
    assert "vs heuristic" in capsys.readouterr().out
    assert training_main(["evaluate", "--checkpoint", checkpoint, "--opponent", "pubeval", "--set", "games=4"]) == 2
    assert "does not play long_nardy" in capsys.readouterr().err


def test_the_shipped_long_nardy_network_plays_by_default():
    if not default_long_nardy_checkpoint().is_file():
        pytest.skip("no shipped long nardy network (python -m training ship --to checkpoints/long_nardy.pt)")
    bot = Bot.load(variant="long")
    assert bot.variant is LONG_NARDY and isinstance(bot.evaluator.network, Network)
    assert bot.evaluator.network.encoding.name == "long_nardy"
    assert bot.best_play(START, (6, 6)).afterstate[18] == 2  # E1: 24/18(2) is the only play


@pytest.mark.slow
def test_a_long_nardy_network_is_refused_as_a_backgammon_bot_and_ships_behind_the_speed_gate(trained, tmp_path, capsys):
    import json

    from bot.evaluation.checkpoint import load_evaluator

    out = tmp_path / "ln.pt"
    assert training_main(["ship", "--checkpoint", str(trained / LATEST), "--to", str(out)]) == 0
    # Shipped again over itself: timed on long nardy decisions and rollouts beside the shipped one (accepted
    # whatever the ratios: a busy machine may time the same network slower).
    again = ["ship", "--checkpoint", str(trained / LATEST), "--to", str(out), "--accept-slower"]
    assert training_main([*again, "--set", "speed_repeats=1"]) == 0
    assert "candidate / shipped" in capsys.readouterr().out
    speed = json.loads(out.with_suffix(".json").read_text())["results"]["speed"]
    assert speed["ply0_ms"] > 0 and speed["rollout_trials_per_s"] > 0
    with pytest.raises(CheckpointError, match="plays long nardy, not backgammon"):
        load_evaluator(out.with_suffix(".npz"))
    assert run(["hint", "4HPwATDgc/ABMA", "31", "--checkpoint", str(out.with_suffix(".npz"))]) == 2
