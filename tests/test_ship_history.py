"""Shipping over a bot carries its history: where its kept networks came from, its notes and results."""

from __future__ import annotations

import json

from training.ship import carry_history


def _replaced(tmp_path) -> dict:
    metadata = {
        "shipped_from": {"contact": "runs/old/contact.pt", "race": "runs/r4/distilled.pt"},
        "shipped_at": "2026-12-01T10:00:00+00:00",
        "results": {"vs_pubeval_0ply": {"points_per_game": 0.62}},
        "previous_results_round_3": {"vs_pubeval_0ply": {"points_per_game": 0.55}},
        "training_note": "how the networks were made",
        "classes": {"bearoff": "databases", "race": "race"},
    }
    (tmp_path / "default.json").write_text(json.dumps(metadata))
    return metadata


def test_a_network_kept_from_the_replaced_bot_keeps_its_origin_and_the_history_stays(tmp_path):
    replaced = _replaced(tmp_path)
    target = tmp_path / "default.pt"
    new = {
        "shipped_from": {"contact": "runs/new/contact.pt", "race": str(target)},
        "shipped_at": "2026-12-05T12:00:00+00:00",
        "results": {"speed": {"ply0_ms": 0.3}},
    }

    carried = carry_history(new, target)

    assert carried["shipped_from"] == {"contact": "runs/new/contact.pt", "race": "runs/r4/distilled.pt"}
    assert carried["shipped_at"] == new["shipped_at"] and carried["results"] == new["results"]
    assert carried["training_note"] == replaced["training_note"]
    assert carried["previous_results_round_3"] == replaced["previous_results_round_3"]
    assert carried["previous_results_shipped_2026-12-01T10:00:00+00:00"] == replaced["results"]
    assert "classes" not in carried  # the replaced bot's networks, not this one's


def test_the_numpy_export_of_the_replaced_bot_counts_as_the_bot_itself(tmp_path):
    _replaced(tmp_path)
    target = tmp_path / "default.pt"

    carried = carry_history({"shipped_from": {"contact": str(tmp_path / "default.npz")}, "results": {}}, target)

    assert carried["shipped_from"] == {"contact": "runs/old/contact.pt"}


def test_a_network_taken_from_a_staged_candidate_keeps_the_candidate_s_record(tmp_path):
    (tmp_path / "candidate").mkdir()
    (tmp_path / "candidate" / "bot.json").write_text(json.dumps({"shipped_from": {"contact": "runs/r/distilled.pt"}}))
    source = str(tmp_path / "candidate" / "bot.pt")

    carried = carry_history({"shipped_from": {"contact": source, "race": "runs/race.pt"}}, tmp_path / "default.pt")

    assert carried["shipped_from"] == {"contact": "runs/r/distilled.pt", "race": "runs/race.pt"}


def test_with_no_bot_to_replace_the_metadata_is_unchanged(tmp_path):
    new = {"shipped_from": {"contact": "runs/new/contact.pt"}, "results": {}}

    assert carry_history(new, tmp_path / "default.pt") == new
    (tmp_path / "default.json").write_text("not json")
    assert carry_history(new, tmp_path / "default.pt") == new
