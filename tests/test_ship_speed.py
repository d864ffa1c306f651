"""The speed gate on shipping: a candidate much slower than the shipped bot is refused unless accepted."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

torch = pytest.importorskip("torch")

from bot.evaluation.checkpoint import load_class_payload, load_evaluator, save_checkpoint  # noqa: E402
from bot.evaluation.prune import pruner_paths  # noqa: E402
from training.torch_network import network_from_payload, widen  # noqa: E402
from training.ship import SLOWER_LIMIT  # noqa: E402

from bot.facade import REPO_CHECKPOINT  # noqa: E402

pytestmark = pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason="no shipped network")


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
def test_a_candidate_several_times_slower_is_refused_with_the_ratios_unless_accepted(tmp_path, capsys):
    from training.__main__ import main

    shipped = REPO_CHECKPOINT.with_suffix(".pt")
    target = tmp_path / "default.pt"
    for path in (shipped, shipped.with_suffix(".npz"), shipped.with_suffix(".json"), *pruner_paths(shipped)):
        shutil.copyfile(path, tmp_path / path.name)
    # The shipped contact network widened to four times its units: the same answers, several times the work.
    contact = network_from_payload(load_class_payload(shipped, "contact"))
    save_checkpoint(tmp_path / "wide.pt", widen(contact, 4 * contact.config.hidden[0]))
    others = [arg for label in ("race", "crashed", "late-contact") for arg in (f"--{label}", str(target))]
    command = [
        "ship",
        "--contact",
        str(tmp_path / "wide.pt"),
        *others,
        "--to",
        str(target),
        "--set",
        "speed_repeats=1",
        "--set",
        "speed_trials=72",
    ]
    before = {suffix: _digest(target.with_suffix(suffix)) for suffix in (".pt", ".npz", ".json")}

    assert main(command) == 2
    out, err = capsys.readouterr()
    assert "candidate / shipped:" in out and "rollout" in out and "as slow" in out
    assert "error: ship: the candidate is more than" in err and "--accept-slower" in err and "pruner" in err
    assert {suffix: _digest(target.with_suffix(suffix)) for suffix in before} == before  # nothing shipped
    assert all(path.is_file() for path in pruner_paths(target))

    assert main(command + ["--accept-slower"]) == 0
    metadata = json.loads(target.with_suffix(".json").read_text())
    replaced = json.loads(shipped.with_suffix(".json").read_text())
    assert metadata["shipped_from"]["race"] == replaced["shipped_from"]["race"]  # the kept network's own origin
    assert metadata["training_note"] == replaced["training_note"]
    record = metadata["results"]["speed"]
    assert max(record["times_as_slow_as_shipped"].values()) > SLOWER_LIMIT
    assert record["rollout_trials_per_s"] > 0 and record["ply0_ms"] > 0
    evaluator = load_evaluator(target.with_suffix(".npz"))
    assert evaluator.networks["contact"].config.hidden == (4 * contact.config.hidden[0],)
    assert evaluator.pruner is None and not any(path.exists() for path in pruner_paths(target))  # fitted to others
    assert not list(tmp_path.glob(".ship-*"))  # the staging folder is gone
