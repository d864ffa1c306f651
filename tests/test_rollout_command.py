"""nardy rollout: the JSON shape, repeatability by seed, the cube from a rollout; few trials, truncated."""

from __future__ import annotations

import io
import json

from bot.doors.cli import run

FAST = ["--trials", "36", "--truncate", "2", "--seed", "3", "--json"]


def rollout(*args: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    assert run(["rollout", *args], stdout=out, stderr=err) == 0, err.getvalue()
    return json.loads(out.getvalue())


def test_position_json_shape_and_seed_repeatability():
    first = rollout("4HPwATDgc/ABMA", *FAST)
    shape = {"variant", "position_id", "trials", "probabilities", "std_errors", "equity", "equity_std_error"}
    assert set(first) == shape
    assert first["variant"] == "backgammon"
    assert first["position_id"] == "4HPwATDgc/ABMA" and first["trials"] == 36
    assert len(first["probabilities"]) == 5 and len(first["std_errors"]) == 5
    assert rollout("4HPwATDgc/ABMA", *FAST) == first
    seeded = ["--trials", "40", "--truncate", "4", "--no-vr", "--json", "--seed"]
    assert rollout("4HPwATDgc/ABMA", *seeded, "4") != rollout("4HPwATDgc/ABMA", *seeded, "5")


def test_dice_roll_out_the_best_plays_ranked():
    data = rollout("4HPwATDgc/ABMA", "31", "--candidates", "3", *FAST)
    assert data["dice"] == [3, 1] and len(data["plays"]) == 3
    assert {"move", "position_id", "probabilities", "std_errors", "equity", "equity_std_error"} <= set(data["plays"][0])
    equities = [p["equity"] for p in data["plays"]]
    assert equities == sorted(equities, reverse=True)


def test_cubeful_gives_the_three_equities_and_says_how():
    data = rollout("4HPwATDgc/ABMA:cAkAAAAAAAAA", "--cubeful", *FAST)
    cube = data["cube"]
    assert cube["double_pass"] == 1.0 and len(cube["std_errors"]) == 3 and cube["verdict"]
    assert "cubeful trials" in cube["method"] and cube["trials"] == 36
    out = io.StringIO()
    assert run(["rollout", "4HPwATDgc/ABMA", "--cubeful", *FAST[:-1]], stdout=out, stderr=io.StringIO()) == 0
    assert "cubeful trials" in out.getvalue() and "Proper cube action" in out.getvalue()


def test_bad_input_is_an_error_line():
    err = io.StringIO()
    assert run(["rollout", "4HPwATDgc/ABMA", "--trials", "1"], stdout=io.StringIO(), stderr=err) == 2
    assert "trials" in err.getvalue()
