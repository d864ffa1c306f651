"""The tools that make and measure stronger long nardy networks: phases, the primes inputs, distillation,
growing a network into new inputs, and the rollout-judged position set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from benchmarks.class_errors import board_of, choice_errors, main as class_errors
from benchmarks.common import load_records
from bot.evaluation.checkpoint import load_player, save_checkpoint
from bot.evaluation.encoding import get_encoding
from bot.evaluation.evaluator import choose_afterstates
from bot.evaluation.long_nardy_encoding import PRIME_NAMES, prime_features, swapped_columns
from bot.evaluation.network import NetworkConfig
from bot.search.rollout import RolloutSettings, rollout_boards
from engine.long_nardy import flip, parse_long_text
from engine.long_nardy.phases import Phase, phases
from engine.variant import LONG_NARDY
from training.config import ConfigError
from training.distill import DistillConfig, distill
from training.torch_network import ValueNetwork, grown_to

from tests.test_long_nardy_bot import self_play_boards

ROOT = Path(__file__).resolve().parents[1]


def board(text: str) -> np.ndarray:
    return parse_long_text(text)


def test_phases_of_positions_a_player_would_name():
    named = {
        "24x15/24x15": Phase.OPENING,
        "24x8,19x1,13x1,11x1,10x1,9x1,8x1,7x1/24x15": Phase.HEAD,
        "6x3,5x3,4x3,3x3,2x3/6x3,5x3,4x3,3x3,1x2": Phase.BEAR_OFF,
        "9x3,6x3,5x3,4x3,3x3/6x3,5x3,4x3,3x3,1x2": Phase.RACE,
        # the mover holds 18..13 but one; the other side's checkers are still behind them
        "24x3,18x2,17x2,16x2,15x2,14x2,3x2/24x5,20x10": Phase.BLOCKS,
        "24x2,20x3,14x3,9x3,5x4/22x3,18x4,11x4,7x4": Phase.MIDDLE,
    }
    for text, phase in named.items():
        assert Phase(phases(board(text)[None])[0]) is phase, text


def test_a_position_has_the_same_phase_for_both_sides():
    boards = self_play_boards(600)
    assert np.array_equal(phases(boards), phases(flip(boards)))
    assert set(phases(boards)) >= {Phase.OPENING, Phase.HEAD, Phase.MIDDLE}


def test_primes_inputs_extend_the_long_nardy_inputs_and_turn_with_the_board():
    primes, plain = get_encoding("long_nardy_primes"), get_encoding("long_nardy")
    boards = self_play_boards(400, seed=1)
    assert primes.size == plain.size + 8 and primes.global_names[: plain.global_size] == plain.global_names
    assert np.array_equal(primes.encode(boards)[:, : plain.size], plain.encode(boards))
    swapped = swapped_columns(PRIME_NAMES)
    assert np.allclose(primes.encode(flip(boards)), primes.encode(boards)[:, swapped], atol=1e-6)


def test_primes_inputs_count_what_a_block_holds_back():
    # The mover holds its 18..14 (five in a row on the other side's path); the other side's five checkers on
    # its head (the mover's 12) and its ten on the mover's 20 are all behind that run.
    features = dict(zip(PRIME_NAMES, prime_features(board("24x5,18x2,17x2,16x2,15x2,14x2/24x5,20x10")[None])[0]))
    assert features["mover.held_back"] == pytest.approx(15 / 15)
    assert features["opponent.held_back"] == 0
    # In front of the rearmost checker (the other side's head, the mover's 12): 11..6 on the mover's
    # numbering, none of which the mover holds... until its path reaches the mover's 18..13 later.
    assert features["mover.escape_blocked"] == 0
    assert features["mover.passed"] == 0 and features["opponent.passed"] == 0
    assert features["mover.pips_to_home"] == pytest.approx((5 * 18 + 2 * (12 + 11 + 10 + 9 + 8)) / 100)
    race = dict(zip(PRIME_NAMES, prime_features(board("9x3,6x3,5x3,4x3,3x3/6x3,5x3,4x3,3x3,1x2")[None])[0]))
    assert race["mover.passed"] == 1 and race["opponent.passed"] == 1
    assert race["mover.pips_to_home"] == pytest.approx(3 * 3 / 100) and race["opponent.pips_to_home"] == 0


def test_a_network_grown_into_new_inputs_and_units_computes_the_same_map():
    torch.manual_seed(0)
    small = ValueNetwork(NetworkConfig("long_nardy", (8,)))
    grown = grown_to(small, NetworkConfig("long_nardy_primes", (12,)))
    assert grown.config == NetworkConfig("long_nardy_primes", (12,))
    boards = self_play_boards(200, seed=2)
    assert np.allclose(grown.probabilities(boards), small.probabilities(boards), atol=1e-6)


@pytest.fixture(scope="module")
def small_long_nardy_network(tmp_path_factory) -> Path:
    """A small untrained long nardy network saved as a training checkpoint."""
    torch.manual_seed(1)
    network = ValueNetwork(NetworkConfig("long_nardy", (8,)))
    path = tmp_path_factory.mktemp("ln_net") / "small.pt"
    save_checkpoint(path, network, training={"games": 0})
    return path


def test_a_long_nardy_checkpoint_plays_long_nardy_in_training(small_long_nardy_network):
    assert load_player(small_long_nardy_network).game is LONG_NARDY


def test_distillation_samples_long_nardy_positions_and_fits_the_search(small_long_nardy_network, tmp_path):
    config = DistillConfig(str(small_long_nardy_network), games=4, parallel_games=4, chunk=256, epochs=2)
    report = distill(config, tmp_path)
    with np.load(tmp_path / "positions.npz") as data:
        boards = data["boards"]
    assert len(boards) > 100 and not boards[:, [0, 25]].any()  # long nardy has no bar
    for b in boards[:50]:
        LONG_NARDY.validate_board(b)
    history = report["history"]
    assert history[report["best_epoch"]]["held_out_loss"] <= history[0]["held_out_loss"]
    assert load_player(tmp_path / "distilled.pt").game is LONG_NARDY


def test_rollout_targets_of_a_long_nardy_network_are_its_own_games(small_long_nardy_network, tmp_path):
    config = DistillConfig(
        str(small_long_nardy_network), games=2, parallel_games=2, max_positions=4, chunk=4, rollout_trials=2
    )
    distill(config, tmp_path, stages=("positions", "targets"))
    with np.load(tmp_path / "targets-00000.npz") as data:
        boards, targets = data["boards"], data["targets"]
    assert len(boards) == 4 and not boards[:, [0, 25]].any()
    games = rollout_boards(
        load_player(small_long_nardy_network),
        boards,
        np.random.default_rng([config.seed, 3, 0]),
        RolloutSettings(trials=2, variance_reduction=False),
    )
    np.testing.assert_allclose(targets, games.mean(axis=1), atol=1e-6)
    np.testing.assert_allclose(targets * 2, np.round(targets * 2), atol=1e-5)  # two finished games each


def test_a_long_nardy_teacher_searches_long_nardy(small_long_nardy_network, tmp_path):
    alone, taught = tmp_path / "alone", tmp_path / "taught"
    settings = dict(games=2, parallel_games=2, max_positions=8, chunk=8)
    distill(DistillConfig(str(small_long_nardy_network), **settings), alone, stages=("positions", "targets"))
    taught.mkdir()
    (taught / "positions.npz").write_bytes((alone / "positions.npz").read_bytes())
    config = DistillConfig(str(small_long_nardy_network), teachers=(str(small_long_nardy_network),), **settings)
    distill(config, taught, stages=("positions", "targets"))
    with np.load(alone / "targets-00000.npz") as one, np.load(taught / "targets-00000.npz") as two:
        np.testing.assert_allclose(two["targets"], one["targets"], atol=1e-6)  # the mean of the same search twice


def test_a_teacher_of_the_other_game_is_refused(small_long_nardy_network, tmp_path):
    backgammon = tmp_path / "backgammon.pt"
    save_checkpoint(backgammon, ValueNetwork(NetworkConfig(hidden=(8,))), training={"games": 0})
    config = DistillConfig(
        str(small_long_nardy_network),
        games=2,
        parallel_games=2,
        max_positions=4,
        chunk=4,
        teachers=(str(backgammon),),
        workers=2,
    )
    with pytest.raises(ConfigError, match="plays backgammon, the checkpoint long nardy"):
        distill(config, tmp_path / "run", stages=("positions", "targets"))


@pytest.mark.slow
def test_the_position_set_judges_long_nardy_plays_and_takes_a_new_bots_choices(small_long_nardy_network, tmp_path):
    out = tmp_path / "set.jsonl"
    tiny = ["--variant", "long", "--positions", "6", "--games", "12", "--trials", "8", "--truncate", "2"]
    class_errors(["--build", "--position-class", "all", *tiny, "--out", str(out)])
    records = load_records(out)
    assert [r["class"] for r in records] == ["bear_off", "race", "opening", "head", "blocks", "middle"]
    best = [max(r["candidates"], key=lambda c: c["equity"])["afterstate"] for r in records]
    oracle = choice_errors(
        records, lambda b, d: np.array([LONG_NARDY.flip(board_of(LONG_NARDY, i)) for i in best]), LONG_NARDY
    )
    assert np.array_equal(oracle.errors, np.zeros(6))
    class_errors(["--variant", "long", "--add-choices", str(small_long_nardy_network), "--fixture", str(out)])
    grown = load_records(out)
    assert [r["position_id"] for r in grown] == [r["position_id"] for r in records]
    measured = choice_errors(
        grown, lambda b, d: choose_afterstates(load_player(small_long_nardy_network), b, d), LONG_NARDY
    )
    assert not np.isnan(measured.errors).any()  # every choice of the new bot now has a rollout value
    with pytest.raises(SystemExit):
        class_errors(["--variant", "long", "--build", "--position-class", "crashed", *tiny, "--out", str(out)])


def test_alternatives_add_the_best_plays_afterstates_the_choice_passed_over(small_long_nardy_network):
    from training.distill import with_alternatives

    evaluator = load_player(small_long_nardy_network)
    boards = self_play_boards(64, seed=3)
    boards = np.unique(boards[(boards > 0).any(axis=1) & (boards < 0).any(axis=1)], axis=0)
    grown = with_alternatives(evaluator, boards, 3, np.random.default_rng(0))
    rows = {b.tobytes() for b in grown}
    assert {b.tobytes() for b in boards} <= rows and len(grown) > len(boards)
    assert len(grown) <= len(boards) * 4 and len(rows) == len(grown)  # at most three plays each, no repeats
    for board in grown:
        LONG_NARDY.validate_board(board)


def test_long_nardy_looks_again_at_1_ply_only_at_plays_near_the_best():
    from bot.facade import Bot

    bot = Bot.load(variant="long")
    position = LONG_NARDY.position.from_id("giUPiKylNg1Sg").board  # 1-1 here has over a hundred plays
    zero = {p.notation: p.equity for p in bot.rank_plays(position, (1, 1), plies=0)}
    deeper = [p.notation for p in bot.rank_plays(position, (1, 1), plies=1) if p.plies == 1]
    best = max(zero.values())
    assert 1 <= len(deeper) <= 8
    assert all(zero[n] >= best - 0.16 for n in deeper)
    assert any(e < best - 0.16 for e in zero.values())  # some plays are left at 0-ply by the window
