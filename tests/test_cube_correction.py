"""The learned cube correction: its domain, its arithmetic, its place in checkpoints, its fit and its commands."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bot.evaluation.checkpoint import (
    CheckpointError,
    export_class_numpy,
    load_evaluator,
    save_checkpoint,
    save_class_checkpoint,
)
from bot.evaluation.classes import ClassEvaluator
from bot.equity.cube import CubeState, MatchScore, Owner, cube_decision, cube_efficiencies, model_decisions
from bot.evaluation.cube_correction import CubeCorrection, edges, in_domain, input_size, inputs, state_of_row, state_row
from bot.search.cube_decision import lookahead_cube_decision
from bot.facade import Bot
from bot.evaluation.network import Network, NetworkConfig
from engine import START
from training.cube_correction import WIDTHS, correction_loss, fit, load_correction, random_state
from training.torch_network import ValueNetwork

MONEY = CubeState()
MATCH = CubeState(cube=2, owner=Owner.ME, match_length=7, score=(2, 4))
RACE = np.zeros(26, dtype=np.int8)
RACE[[6, 8]], RACE[[17, 19]] = (10, 5), (-5, -10)  # no contact left


def shift_by(nd: float, dt: float, hidden: int = 4) -> CubeCorrection:
    """A correction that adds (nd, dt) to every in-domain position: output weights zero, the bias the shift."""
    size = input_size()
    return CubeCorrection.from_arrays(
        {
            "mean": np.zeros(size),
            "spread": np.ones(size),
            "hidden_weight": np.zeros((hidden, size)),
            "hidden_bias": np.zeros(hidden),
            "out_weight": np.zeros((2, hidden)),
            "out_bias": np.array([nd, dt]),
        }
    )


def fives(*wins: float) -> np.ndarray:
    """Gammonless probabilities with these chances of winning."""
    return np.array([[w, 0.0, 0.0, 0.0, 0.0] for w in wins])


@pytest.fixture(scope="module")
def network() -> Network:
    torch.manual_seed(4)
    net = ValueNetwork(NetworkConfig(hidden=(8,)))
    return Network(net.config, net.state_dict())


def test_domain_is_near_a_decision_with_the_win_chance_in_range():
    boards = np.stack([START] * 5)
    probs = fives(0.30, 0.65, 0.995, 0.55, 0.80)
    values = edges(model_decisions(probs, cube_efficiencies(boards), MONEY))
    # Gammonless, money: 0.65 is near the double point, 0.80 near the pass point; 0.55 is in range but far from
    # both (no double 0.15, double/take -0.11); 0.30 and 0.995 are out of range.
    assert in_domain(boards, probs, values).tolist() == [False, True, False, False, True]
    # Races are out of it, near an edge or not.
    assert not in_domain(np.stack([RACE] * 5), probs, values).any()


def test_a_race_keeps_the_models_decision():
    probs = fives(0.65, 0.80)
    for state in (MONEY, MATCH):
        plain = [cube_decision(RACE, p, state) for p in probs]
        assert shift_by(0.3, 0.5).decisions(np.stack([RACE, RACE]), probs, state) == plain
        assert shift_by(0.3, 0.5).decisions(np.stack([START, START]), probs, state) != plain


def test_a_zero_shift_leaves_the_models_decisions_and_a_shift_moves_only_the_domain():
    probs = fives(0.30, 0.60, 0.65, 0.72, 0.80, 0.90)
    boards = np.stack([START] * len(probs))
    for state in (MONEY, MATCH):
        plain = [cube_decision(b, p, state) for b, p in zip(boards, probs)]
        assert shift_by(0.0, 0.0).decisions(boards, probs, state) == plain
        domain = in_domain(boards, probs, edges(model_decisions(probs, cube_efficiencies(boards), state)))
        assert domain.any() and not domain.all()
        moved = shift_by(0.0, 0.5).decisions(boards, probs, state)
        for inside, before, after in zip(domain, plain, moved):
            assert after.double_take == pytest.approx(before.double_take + (0.5 if inside else 0.0))
            assert after.no_double == pytest.approx(before.no_double)
    # In a match the shifted equities come with their match-winning chances.
    decision = shift_by(0.1, -0.2).decisions(boards[:1], probs[:1], MATCH)[0]
    score = MatchScore.of(MATCH)
    assert score.normalise(decision.mwc_double_take, MATCH.cube) == pytest.approx(decision.double_take)
    assert decision.mwc_double_pass == pytest.approx(score.after(MATCH.cube))


def test_the_bot_decides_at_zero_ply_with_its_correction_and_searches_with_the_model(network):
    plain = ClassEvaluator({"contact": network})
    corrected = ClassEvaluator({"contact": network}, cube_correction=shift_by(0.0, 3.0))
    board = START.copy()
    five = fives(0.72)[0]
    assert lookahead_cube_decision(plain, board, MONEY, 0, five=five).should_take
    assert not lookahead_cube_decision(corrected, board, MONEY, 0, five=five).should_take  # dt + 3: a pass
    assert Bot(corrected).cube_decision(board, MONEY, 1) == Bot(plain).cube_decision(board, MONEY, 1)


def test_stored_arrays_are_checked():
    arrays = shift_by(0.0, 0.0).arrays()
    with pytest.raises(ValueError, match=r"missing arrays \['out_bias'\]"):
        CubeCorrection.from_arrays({k: v for k, v in arrays.items() if k != "out_bias"})
    with pytest.raises(ValueError, match=r"mean is \[3\]"):
        CubeCorrection.from_arrays({**arrays, "mean": np.zeros(3)})
    with pytest.raises(ValueError, match="hidden_weight holds NaN"):
        CubeCorrection.from_arrays({**arrays, "hidden_weight": np.full_like(arrays["hidden_weight"], np.nan)})
    with pytest.raises(ValueError, match="spread must be positive"):
        CubeCorrection.from_arrays({**arrays, "spread": np.zeros_like(arrays["spread"])})


@pytest.mark.parametrize("suffix", [".pt", ".npz"])
def test_a_bot_file_carries_its_correction(tmp_path, suffix):
    torch.manual_seed(5)
    net = ValueNetwork(NetworkConfig(hidden=(8,)))
    path = tmp_path / f"bot{suffix}"
    correction = shift_by(0.05, -0.1)
    if suffix == ".pt":
        save_class_checkpoint(path, {"contact": net}, cube_correction=correction)
        save_class_checkpoint(tmp_path / "plain.pt", {"contact": net})
    else:
        export_class_numpy(path, {"contact": (net.config, net.state_dict())}, cube_correction=correction)
        export_class_numpy(tmp_path / "plain.npz", {"contact": (net.config, net.state_dict())})
    loaded = load_evaluator(path).cube_correction
    assert loaded is not None
    for name, array in correction.arrays().items():
        np.testing.assert_array_equal(loaded.arrays()[name], array)
    assert load_evaluator(tmp_path / f"plain{suffix}").cube_correction is None


def test_a_damaged_correction_is_a_checkpoint_error(tmp_path):
    torch.manual_seed(6)
    net = ValueNetwork(NetworkConfig(hidden=(8,)))
    path = tmp_path / "bot.npz"
    export_class_numpy(path, {"contact": (net.config, net.state_dict())}, cube_correction=shift_by(0.0, 0.0))
    with np.load(path) as stored:
        arrays = {name: stored[name] for name in stored.files}
    arrays["cube_correction/out_bias"] = np.array([0.0, 1.0], dtype=np.float32)
    np.savez(path, **arrays)
    with pytest.raises(CheckpointError, match="cube correction does not match its checksum"):
        load_evaluator(path)
    del arrays["classes"]
    arrays["classes"] = np.array('{"format": 1, "bearoff": "databases", "networks": {"contact": {}}}')
    np.savez(path, **arrays)
    with pytest.raises(CheckpointError, match="cube-correction arrays the manifest does not list"):
        load_evaluator(path)


@pytest.mark.slow
def test_fit_learns_a_shift_that_depends_on_the_cube_state():
    rng = np.random.default_rng(3)
    states = np.array([state_row(random_state(rng)) for _ in range(2000)])
    boards = np.stack([START] * len(states))
    probs = fives(*rng.uniform(0.5, 0.9, len(states)))
    values = np.zeros((len(states), 7))
    x = inputs(boards, probs, values, states)
    money = states[:, 0] == 0
    y = np.column_stack([np.where(money, 0.2, -0.1), np.where(money, -0.3, 0.1)])
    correction, held = fit(x, y, np.full((len(x), 2), 0.5), hidden=8, seed=1, epochs=30)
    np.testing.assert_allclose(correction.shifts(x[held]), y[held], atol=0.03)
    # A fit on some rows holds out those of its rows that the fit on every row held out.
    use = rng.random(len(x)) < 0.7
    _, kept_out = fit(x, y, np.full((len(x), 2), 0.5), hidden=8, seed=1, epochs=1, use=use)
    assert sorted(kept_out.tolist()) == sorted(held[use[held]].tolist())


def test_the_loss_weighs_an_error_that_moves_the_double_decision_more():
    model = torch.tensor([[0.60, 0.65]])  # the model doubles by 0.05
    target = torch.tensor([[0.05, -0.05]])  # the lookahead would not: it finds 0.70 / 0.60
    alike = target + torch.tensor([[0.04, 0.04]])  # both off by 0.04: still a no double
    apart = target + torch.tensor([[-0.04, 0.04]])  # both off by 0.04: a double again
    assert correction_loss(target, target, model) == 0.0
    assert float(correction_loss(alike, target, model, margin_weight=0.0)) == pytest.approx(
        float(correction_loss(apart, target, model, margin_weight=0.0))
    )
    assert correction_loss(alike, target, model) < correction_loss(apart, target, model)


def test_random_states_round_trip_and_cover_the_fixture_kinds():
    rng = np.random.default_rng(0)
    states = [random_state(rng) for _ in range(300)]
    assert all(state_of_row(np.array(state_row(s))) == s for s in states)
    assert any(s.is_money for s in states) and any(s.crawford for s in states)
    assert any(not s.is_money and not s.crawford and s.match_length - 1 in s.score for s in states)  # post-Crawford


def test_ship_command_puts_the_correction_in_the_bot(tmp_path, capsys):
    from training.__main__ import main

    torch.manual_seed(7)
    save_checkpoint(tmp_path / "a.pt", ValueNetwork(NetworkConfig(hidden=(8,))))
    np.savez(tmp_path / "correction.npz", **shift_by(0.0, 0.2).arrays())
    assert (
        main(
            [
                "ship",
                "--contact",
                str(tmp_path / "a.pt"),
                "--cube-correction",
                str(tmp_path / "correction.npz"),
                "--to",
                str(tmp_path / "bot.pt"),
            ]
        )
        == 0
    )
    for suffix in (".pt", ".npz"):
        stored = load_evaluator(tmp_path / f"bot{suffix}").cube_correction
        assert stored is not None and stored.out_bias.tolist() == pytest.approx([0.0, 0.2])
    assert load_correction(tmp_path / "correction.npz").out_bias.tolist() == pytest.approx([0.0, 0.2])
    (tmp_path / "bad.npz").write_bytes(b"not a numpy file")
    assert (
        main(
            [
                "ship",
                "--contact",
                str(tmp_path / "a.pt"),
                "--cube-correction",
                str(tmp_path / "bad.npz"),
                "--to",
                str(tmp_path / "other.pt"),
            ]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert "cube correction" in error and "bad.npz" in error and "unreadable" in error
    assert (
        main(
            [
                "ship",
                "--checkpoint",
                str(tmp_path / "a.pt"),
                "--cube-correction",
                str(tmp_path / "correction.npz"),
                "--to",
                str(tmp_path / "single.pt"),
            ]
        )
        == 2
    )


@pytest.mark.slow
def test_cube_correction_command_fits_cached_samples_and_refuses_bad_input(tmp_path, capsys):
    from training.__main__ import main

    rng = np.random.default_rng(2)
    count = 1000
    states = np.array([state_row(random_state(rng)) for _ in range(count)], dtype=np.float64)
    probs = fives(*rng.uniform(0.5, 0.9, count))
    model = np.column_stack([rng.uniform(0.3, 1.0, (count, 6)), np.full(count, 0.68)])
    model[:, 0] = model[:, 1] - 0.05  # no double near double/take: every sample near an edge
    boards = np.stack(
        [START] * (count - 20) + [RACE] * 20
    )  # races: sample files made before the domain left them out hold some
    samples = {"boards": boards, "states": states, "probs": probs, "model": model, "lookahead": model[:, :2] + 0.1}
    run = tmp_path / "run"
    run.mkdir()
    np.savez(run / "samples.npz", **samples)
    # The samples are there: no search, a fit, and the correction file that ship takes.
    assert (
        main(
            [
                "cube-correction",
                "--checkpoint",
                str(tmp_path / "unused.pt"),
                "--out",
                str(run),
                "--set",
                "samples=200",
                "--set",
                "hidden=4",
            ]
        )
        == 0
    )
    assert "1000 samples, 980 in the correction's domain; on the 9" in capsys.readouterr().out  # 9x held out
    fitted = load_correction(run / "correction.npz")
    assert fitted.shifts(inputs(samples["boards"][:5], probs[:5], model[:5], states[:5])) == pytest.approx(
        0.1, abs=0.05
    )
    assert main(["cube-correction", "--checkpoint", "x.pt", "--out", str(run), "--set", "samples=0"]) == 2
    assert "'cube_correction.samples': must be 100..100000000, got 0" in capsys.readouterr().err
    np.savez(run / "samples.npz", **{**samples, "probs": probs[:, :3]})
    assert main(["cube-correction", "--checkpoint", "x.pt", "--out", str(run)]) == 2
    assert "not a cube-correction sample file" in capsys.readouterr().err
    (run / "samples.npz").write_bytes(b"damaged")
    assert main(["cube-correction", "--checkpoint", "x.pt", "--out", str(run)]) == 2
    assert "unreadable" in capsys.readouterr().err
    assert set(WIDTHS) == set(samples)
