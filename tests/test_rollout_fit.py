"""benchmarks.rollout_fit: a bot measured against targets that are its own 0-ply values reads 0 at 0-ply; the
rollouts' noise is measured by rolling a run's positions out again."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.rollout_fit import kl, main
from bot.evaluation.checkpoint import load_evaluator
from engine import decode_position_id

from benchmarks.common import DEFAULT_CHECKPOINT


def _run_of_own_values(tmp_path, settings: str) -> np.ndarray:
    """A finished run in ``tmp_path`` whose targets are the shipped bot's own 0-ply values of three positions."""
    boards = np.array([decode_position_id(p) for p in ("4HPwATDgc/ABMA", "2wEAALbbEQQCAA", "u7UFUAA5AAAAAA")])
    own = np.asarray(load_evaluator(DEFAULT_CHECKPOINT.with_suffix(".npz")).probabilities(boards), dtype=np.float32)
    np.savez(tmp_path / "positions.npz", boards=boards)
    (tmp_path / "distill.json").write_text(settings)
    np.savez(tmp_path / "targets-00000.npz", boards=boards, targets=own)
    return own


def test_a_bot_fits_its_own_values_exactly(tmp_path, capsys):
    own = _run_of_own_values(tmp_path, '{"chunk": 4096}')
    assert kl(own, own) == pytest.approx(0.0, abs=1e-6)
    main(["--run", str(tmp_path), str(DEFAULT_CHECKPOINT.with_suffix(".npz"))])
    out = capsys.readouterr().out
    assert "3 positions" in out and "0-ply KL 0.00000, equity RMS 0.0000" in out


def test_a_run_without_its_targets_is_one_message(tmp_path):
    np.savez(tmp_path / "positions.npz", boards=np.zeros((1, 26), dtype=np.int8))
    (tmp_path / "distill.json").write_text('{"chunk": 4096}')
    with pytest.raises(SystemExit, match="targets-00000.npz is missing or damaged"):
        main(["--run", str(tmp_path), str(DEFAULT_CHECKPOINT.with_suffix(".npz"))])


def test_noise_rolls_the_positions_out_again_with_the_runs_settings(tmp_path, capsys):
    _run_of_own_values(tmp_path, '{"chunk": 4096, "rollout_trials": 4, "rollout_truncate": 2, "rollout_vr": false}')
    main(["--run", str(tmp_path), "--noise", "5", str(DEFAULT_CHECKPOINT.with_suffix(".npz"))])
    line = capsys.readouterr().out.splitlines()[-1]
    assert "3 positions rolled out again with new dice" in line
    kl_value = float(line.split("KL ")[1].split(",")[0])
    assert 0.0 < kl_value < 0.5  # two short rollouts of a position differ, but stay near each other


def test_noise_of_a_searched_run_is_one_message(tmp_path):
    _run_of_own_values(tmp_path, '{"chunk": 4096, "plies": 1}')
    with pytest.raises(SystemExit, match="searched values, not rollouts"):
        main(["--run", str(tmp_path), "--noise", "5", str(DEFAULT_CHECKPOINT.with_suffix(".npz"))])
