"""Encodings, outcome arithmetic, the value network, checkpoints and the evaluators."""

from __future__ import annotations

import functools
import importlib
import sys

import numpy as np
import pytest
import torch

from conftest import board, sure_gammon_network
from bot.evaluation.checkpoint import (
    CheckpointError,
    load_checkpoint,
    load_class_payload,
    load_evaluator,
    load_network,
    save_checkpoint,
)
from bot.evaluation.encoding import ENCODINGS, get_encoding, is_race, rearmost
from bot.evaluation.evaluator import (
    NetworkEvaluator,
    ProbabilityEvaluator,
    best_children,
    choose_afterstates,
)
from bot.facade import default_checkpoint
from bot.evaluation import compiled
import engine.compiled
from bot.evaluation.network import Network, NetworkConfig
from bot.search.nply import SearchEvaluator, candidates_filter, probabilities_at
from training.torch_network import ValueNetwork, network_from_payload
from bot.equity.outcomes import (
    equity,
    finished_probabilities,
    invert,
    is_finished,
    to_cumulative,
    to_six,
    winner_outcome,
)
from engine import ROLL_WEIGHTS, ROLLS, START, afterstates, flip
from training.selfplay import SelfPlay


def played_positions(count: int = 400) -> np.ndarray:
    """Varied legal positions from a few plies of random self-play."""
    rng = np.random.default_rng(3)
    boards = np.tile(START, (count, 1))
    seen = []
    for _ in range(30):
        children, parent = afterstates(boards, rng.integers(1, 7, size=(count, 2)))
        pick = best_children(rng.random(len(children)), parent, count)
        boards = flip(children[pick])
        boards[is_finished(flip(boards))] = START
        seen.append(boards)
    return np.concatenate(seen)


# Encodings.


def test_tesauro_units_of_the_start_position():
    x = get_encoding("tesauro").encode(START[None])[0]
    assert x.shape == (196,)
    assert list(x[8 * 23 : 8 * 23 + 4]) == [1, 1, 0, 0]  # point 24: two of the mover's
    assert list(x[8 * 12 : 8 * 12 + 4]) == [1, 1, 1, 1.0]  # point 13: five -> (5 - 3) / 2
    assert list(x[8 * 11 + 4 : 8 * 12]) == [1, 1, 1, 1.0]  # point 12: five of the opponent's
    assert list(x[8 * 0 + 4 : 8 * 1]) == [1, 1, 0, 0]  # point 1: two of the opponent's
    assert list(x[192:]) == [0, 0, 0, 0]  # bars empty, nothing borne off


def test_extended_features_by_hand():
    b = board({25: 2, 20: 1, 3: 12}, {0: 1, 5: 2, 22: 10})
    x = get_encoding("extended").encode(b[None])[0]
    counts = x[194:200]
    assert counts == pytest.approx([(50 + 20 + 36) / 100, (25 + 40 + 30) / 100, 3 / 15, 3 / 15, 12 / 15, 10 / 15])
    borne_off, race, back = x[200:202], x[202], x[203:205]
    assert borne_off == pytest.approx([0, 2 / 15])
    assert race == 0
    assert back == pytest.approx([25 / 25, 25 / 25])


def test_race_and_rearmost():
    race = board({6: 5, 4: 10}, {7: 3, 20: 12})
    contact = board({8: 1, 4: 14}, {7: 3, 20: 12})
    assert list(is_race(np.stack([race, contact]))) == [True, False]
    assert [list(r) for r in rearmost(np.stack([race, contact]))] == [[6, 8], [18, 18]]


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_compiled_global_features_equal_numpys(name, monkeypatch):
    encoding = get_encoding(name)
    boards = np.concatenate([played_positions(50)] + list(classed_positions(100).values()))
    monkeypatch.setattr(engine.compiled, "NUMPY_BOARDS_BEFORE_COMPILING", 0)
    served = encoding.global_features(boards)
    monkeypatch.setitem(sys.modules, "bot.evaluation.kernels", None)
    compiled._load.cache_clear()
    try:
        np.testing.assert_array_equal(served, encoding.global_features(boards))
    finally:
        compiled._load.cache_clear()


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_network_fast_path_equals_the_dense_encoding(name):
    network = ValueNetwork(NetworkConfig(encoding=name, hidden=(16, 8)))
    boards = played_positions(50)
    with torch.no_grad():
        fast = network(*network.inputs(boards))
        dense = network.dense_forward(torch.from_numpy(network.encoding.encode(boards)))
    torch.testing.assert_close(fast, dense, atol=1e-5, rtol=1e-5)


# Outcomes.


def test_outcome_arithmetic():
    rng = np.random.default_rng(0)
    six = rng.dirichlet(np.ones(6), size=20).astype(np.float32)
    five = to_cumulative(six)
    np.testing.assert_allclose(to_six(five), six, atol=1e-6)
    np.testing.assert_allclose(invert(invert(five)), five, atol=1e-6)
    np.testing.assert_allclose(equity(invert(five)), -equity(five), atol=1e-6)
    assert equity(np.array([1.0, 1.0, 1.0, 0.0, 0.0])) == 3.0
    assert list(invert(np.array([0.7, 0.2, 0.1, 0.05, 0.01]))) == pytest.approx([0.3, 0.05, 0.01, 0.2, 0.1])


def test_winner_outcome_single_gammon_backgammon():
    single = board({}, {20: 14})  # the loser has borne one off
    gammon = board({}, {20: 15})
    backgammon_home = board({}, {20: 14, 3: 1})
    backgammon_bar = board({}, {20: 14, 0: 1})
    outcomes = winner_outcome(np.stack([single, gammon, backgammon_home, backgammon_bar]))
    assert list(outcomes) == [0, 1, 2, 2]
    assert finished_probabilities(gammon[None]).tolist() == [[1, 1, 0, 0, 0]]


# Network and checkpoints.


def test_probabilities_are_consistent():
    network = ValueNetwork(NetworkConfig(hidden=(8,)))
    five = network.probabilities(played_positions(100))
    win, wg, wbg, lg, lbg = five.T
    assert ((0 <= wbg) & (wbg <= wg + 1e-6) & (wg <= win + 1e-6) & (win <= 1 + 1e-6)).all()
    assert ((0 <= lbg) & (lbg <= lg + 1e-6) & (lg <= 1 - win + 1e-6)).all()


def test_probabilities_are_clipped_to_zero_one():
    network = sure_gammon_network()
    with torch.no_grad():
        raw = torch.softmax(network(*network.inputs(START[None])), dim=1) @ network.cumulative
    assert raw.max().item() > 1.0  # the rounding error the clip is for
    five = network.probabilities(np.stack([START, flip(START)]))
    assert five.min() >= 0.0 and five.max() == 1.0 and five.dtype == np.float32


def scattered(rng: np.random.Generator, checkers: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """(N, 26) one side's checkers: ``checkers[i]`` of them on random points ``low[i]..high[i]``."""
    side = np.zeros((len(checkers), 26), dtype=np.int8)
    for row, n, a, b in zip(side, checkers, low, high):
        np.add.at(row, rng.integers(a, b + 1, size=n), 1)
    return side


@functools.cache
def classed_positions(count: int = 400) -> dict[str, np.ndarray]:
    """``count`` positions of each class: contact, race, bear-off (both sides home), checkers on the bar (made once
    per count; callers only read them)."""
    rng = np.random.default_rng(5)
    contact = played_positions(count // 30 + 1)
    contact = contact[~is_race(contact)][:count]
    split = rng.integers(7, 19, size=count)  # race: the mover below the split point, the opponent above it
    race = scattered(rng, rng.integers(1, 16, count), np.ones(count, int), split - 1) - scattered(
        rng, rng.integers(1, 16, count), split + 1, np.full(count, 24)
    )
    home = scattered(rng, rng.integers(1, 16, count), np.ones(count, int), np.full(count, 6)) - scattered(
        rng, rng.integers(1, 16, count), np.full(count, 19), np.full(count, 24)
    )
    bar = contact.copy()
    for row in bar:  # up to 3 of each side's checkers to its bar
        for side, bar_slot in ((1, 25), (-1, 0)):
            for point in rng.choice(np.flatnonzero(row[1:25] * side > 0) + 1, size=rng.integers(1, 4)):
                if row[point] * side > 0:
                    row[point] -= side
                    row[bar_slot] += side
    return {"contact": contact, "race": race, "bear-off": home, "bar": bar}


def test_classed_positions_are_of_their_class():
    classes = classed_positions(200)
    assert all(len(boards) == 200 for boards in classes.values())
    assert not is_race(classes["contact"]).any() and is_race(classes["race"]).all()
    home = classes["bear-off"]
    assert (np.maximum(home[:, 7:], 0).sum(axis=1) == 0).all() and (np.minimum(home[:, :19], 0).sum(axis=1) == 0).all()
    assert ((classes["bar"][:, 25] > 0) & (classes["bar"][:, 0] < 0)).all()


def numpy_twin(network: ValueNetwork) -> Network:
    """The numpy network with the weights of a torch one."""
    return Network(network.config, {name: value.numpy() for name, value in network.state_dict().items()})


def assert_same_probabilities(numpy_network, torch_network, boards: np.ndarray) -> None:
    """Within 1e-5 of torch on ``boards`` as they are, and on their afterstates as search batches them."""
    children, _ = afterstates(boards, np.random.default_rng(0).integers(1, 7, size=(len(boards), 2)))
    for batch in (boards, flip(children)):
        np.testing.assert_allclose(
            numpy_network.probabilities(batch), torch_network.probabilities(batch), rtol=0, atol=1e-5
        )


@pytest.fixture(params=["numpy", "compiled"])
def first_layer(request, monkeypatch):
    """Serve every batch in numpy (as without numba), or compiled (``bot.evaluation.kernels``)."""
    if request.param == "numpy":
        monkeypatch.setitem(sys.modules, "bot.evaluation.kernels", None)  # its import fails, as without numba
    else:
        monkeypatch.setattr(engine.compiled, "NUMPY_BOARDS_BEFORE_COMPILING", 0)
    compiled._load.cache_clear()
    yield request.param
    compiled._load.cache_clear()


@pytest.mark.parametrize("kind", ["contact", "race", "bear-off", "bar"])
@pytest.mark.slow
def test_numpy_network_matches_torch_on_every_class_of_position(kind, first_layer):
    boards = classed_positions()[kind]
    checkpoint = default_checkpoint()
    served = load_evaluator(checkpoint).networks  # every network of the shipped bot, numpy export against torch file
    for label, network in served.items():
        trained = network_from_payload(load_class_payload(checkpoint.with_suffix(".pt"), label)).eval()
        assert_same_probabilities(network, trained, boards)


# Every encoding with the shipped activation; every activation, with one hidden layer (where a tanh or sigmoid
# network runs whole in one compiled kernel) and with two, on one encoding.
SHAPES = [(name, "sigmoid", (32, 16)) for name in sorted(ENCODINGS)] + [
    ("extended", activation, hidden)
    for activation in ("sigmoid", "tanh", "relu", "elu")
    for hidden in ((32,), (32, 16))
    if (activation, hidden) != ("sigmoid", (32, 16))
]


@pytest.mark.parametrize(
    "name, activation, hidden", SHAPES, ids=[f"{n}-{a}-{'x'.join(map(str, h))}" for n, a, h in SHAPES]
)
@pytest.mark.slow
def test_numpy_network_matches_torch_for_every_encoding_and_activation(name, activation, hidden, first_layer):
    torch.manual_seed(0)
    network = ValueNetwork(NetworkConfig(encoding=name, hidden=hidden, activation=activation)).eval()
    boards = np.concatenate([boards[:100] for boards in classed_positions(100).values()])
    assert_same_probabilities(numpy_twin(network), network, boards)


def test_compiled_tanh_is_within_a_few_float32_roundings_of_numpys():
    kernels = pytest.importorskip("bot.evaluation.kernels")
    x = np.concatenate([np.linspace(-12, 12, 200_001), [0.0, -0.0, 1e-30, 9.0, -9.0, 50.0, -1e30]]).astype(np.float32)
    squashed = x.copy()
    kernels.squash(squashed)
    np.testing.assert_allclose(squashed, np.tanh(x), rtol=0, atol=5e-7)
    negated = -x
    kernels.squash(negated)
    np.testing.assert_array_equal(negated, -squashed)  # odd, as tanh is
    assert np.abs(squashed).max() <= 1.0 + 2e-7


@pytest.mark.parametrize("failure", ["no numba", "no cache directory"])
def test_without_numba_every_batch_is_served_in_numpy(monkeypatch, failure):
    if failure == "no numba":
        monkeypatch.setitem(sys.modules, "bot.evaluation.kernels", None)  # its import fails, as without numba
    else:  # numba's own error where neither the install nor the cache directory is writable

        def no_locator(name):
            raise RuntimeError("cannot cache function 'embedding_bag': no locator available")

        monkeypatch.setattr(importlib, "import_module", no_locator)
    compiled._load.cache_clear()
    try:
        assert compiled.kernel("embedding_bag", 10**6) is None
    finally:
        compiled._load.cache_clear()


def test_bad_network_configs():
    with pytest.raises(ValueError, match="encoding 'nope'"):
        NetworkConfig(encoding="nope")
    with pytest.raises(ValueError, match="hidden"):
        NetworkConfig(hidden=())
    with pytest.raises(ValueError, match="activation"):
        NetworkConfig(activation="softplus")


def test_checkpoint_round_trip(tmp_path):
    network = ValueNetwork(NetworkConfig(hidden=(16,), activation="tanh"))
    path = tmp_path / "net.pt"
    save_checkpoint(path, network, {"games": 5}, {"name": "x"})
    assert [p.name for p in tmp_path.iterdir()] == ["net.pt"]  # no temporary file left
    loaded = load_network(path)
    boards = played_positions(20)
    np.testing.assert_allclose(loaded.probabilities(boards), network.probabilities(boards), atol=1e-6)
    payload = load_checkpoint(path)
    assert payload["training"] == {"games": 5} and payload["config"] == {"name": "x"}


def test_checkpoint_shape_mismatch_is_a_clear_error(tmp_path):
    path = tmp_path / "net.pt"
    save_checkpoint(path, ValueNetwork(NetworkConfig(hidden=(16,))))
    with pytest.raises(CheckpointError, match=r"hidden: checkpoint has \(16,\), config asks for \(32,\)"):
        load_network(path, expected=NetworkConfig(hidden=(32,)))
    payload = load_checkpoint(path)
    payload["network_config"]["hidden"] = [8]
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match="weights do not fit"):
        load_network(path)


def test_missing_and_foreign_checkpoints(tmp_path):
    with pytest.raises(CheckpointError, match="no such file"):
        load_network(tmp_path / "absent.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="unreadable"):
        load_network(tmp_path / "junk.pt")
    torch.save({"weights": {}}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a format-1 checkpoint"):
        load_network(tmp_path / "other.pt")


# Evaluators and move choice.


class PipEvaluator(ProbabilityEvaluator):
    """A deterministic fake: the side on roll's win chance grows with the pip lead."""

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        points = np.arange(26)
        mover = (np.maximum(boards, 0) * points).sum(axis=1)
        opponent = (np.maximum(-boards, 0) * (25 - points)).sum(axis=1)
        win = 1.0 / (1.0 + np.exp((mover - opponent - 8) / 20.0))
        return np.stack([win, 0.1 * win, 0.01 * win, 0.1 * (1 - win), 0.01 * (1 - win)], axis=1).astype(np.float32)


def test_best_children_takes_the_first_maximum_of_each_parent():
    scores = np.array([0.1, 0.5, 0.5, -1.0, 2.0, 0.0, 0.3])
    parent = np.array([0, 0, 0, 1, 2, 2, 2])
    assert list(best_children(scores, parent, 3)) == [1, 3, 4]
    rng = np.random.default_rng(0)
    explored = np.stack([best_children(scores, parent, 3, rng, epsilon=1.0) for _ in range(200)])
    assert set(explored[:, 0]) == {0, 1, 2} and set(explored[:, 1]) == {3} and set(explored[:, 2]) == {4, 5, 6}


def test_choice_is_the_best_legal_afterstate():
    evaluator = PipEvaluator()
    boards = played_positions(60)
    dice = np.random.default_rng(1).integers(1, 7, size=(len(boards), 2))
    chosen = choose_afterstates(evaluator, boards, dice)
    for b, d, c in zip(boards, dice, chosen):
        children, parent = afterstates(b[None], d[None])
        scores = evaluator.afterstate_scores(b[None], children, parent)
        assert any((c == child).all() for child in children)
        assert equity(evaluator.afterstate_probabilities(c[None]))[0] == pytest.approx(scores.max())


def test_afterstate_probabilities_flip_and_invert():
    network = NetworkEvaluator(ValueNetwork(NetworkConfig(hidden=(8,))))
    after = played_positions(10)
    expected = invert(network.probabilities(flip(after)))
    np.testing.assert_allclose(network.afterstate_probabilities(after), expected)
    finished = board({}, {20: 15})
    assert network.afterstate_probabilities(finished[None]).tolist() == [[1, 1, 0, 0, 0]]


def test_one_ply_matches_a_plain_loop():
    evaluator = PipEvaluator()
    positions = played_positions(40)[::7][:5]
    got = probabilities_at(evaluator, positions, 1)
    for position, five in zip(positions, got):
        total = np.zeros(5)
        for roll, weight in zip(ROLLS, ROLL_WEIGHTS):
            children, parent = afterstates(flip(position)[None], roll[None])
            replies = evaluator.afterstate_probabilities(children)
            total += weight * invert(replies[np.argmax(equity(replies))])
        np.testing.assert_allclose(five, total, atol=1e-5)


def test_one_ply_choice_with_one_candidate_is_the_zero_ply_choice():
    evaluator = PipEvaluator()
    boards = played_positions(30)[::3]
    dice = np.random.default_rng(2).integers(1, 7, size=(len(boards), 2))
    np.testing.assert_array_equal(
        choose_afterstates(SearchEvaluator(evaluator, 1, candidates_filter(1)), boards, dice),
        choose_afterstates(evaluator, boards, dice),
    )
    children, parent = afterstates(boards, dice)
    scores = SearchEvaluator(evaluator, 1, candidates_filter(3)).afterstate_scores(boards, children, parent)
    kept = np.isfinite(scores)
    assert (np.bincount(parent[kept], minlength=len(boards)) == np.minimum(np.bincount(parent), 3)).all()


def test_self_play_positions_are_legal_and_targets_are_distributions():
    network = NetworkEvaluator(ValueNetwork(NetworkConfig(hidden=(8,))))
    samples = SelfPlay(16, 0.7, 0.1, np.random.default_rng(0)).play(network, 200)
    assert samples.games >= 1 and samples.results.sum() == samples.games
    assert (np.abs(samples.boards).sum(axis=1) > 0).all()
    assert (np.maximum(samples.boards, 0).sum(axis=1) <= 15).all()
    np.testing.assert_allclose(samples.targets.sum(axis=1), 1.0, atol=1e-5)
    assert (samples.targets > -1e-6).all()
