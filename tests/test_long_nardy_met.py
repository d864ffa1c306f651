"""Long nardy's match equity table: a proper table, found by variant, and the recursions it is built by."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks.long_nardy_met import main, post_crawford, pre_crawford
import bot
from bot.equity.met import LONG_NARDY_TABLE_FILE, default_met, met_for
from engine.errors import InvalidOptionError
from engine.variant import BACKGAMMON, LONG_NARDY


def test_the_table_is_found_by_variant_and_backgammon_keeps_its_own():
    long = met_for("long")
    assert met_for(LONG_NARDY) is long and met_for("Long-Nardy") is long and long.size == 25
    assert met_for("bg") is default_met() and met_for(BACKGAMMON) is default_met()
    assert long.name != default_met().name
    with pytest.raises(InvalidOptionError, match="variant 'chess': unknown"):
        met_for("chess")


def test_the_table_is_a_proper_match_equity_table():
    table = met_for("long_nardy")
    pre, post = table.pre_crawford, table.post_crawford
    np.testing.assert_allclose(pre + pre.T, 1.0, atol=2e-6)
    np.testing.assert_allclose(np.diag(pre), 0.5)
    assert np.all(np.diff(pre, axis=0) < 0), "needing more points lowers the MWC"
    assert np.all(np.diff(pre, axis=1) > 0), "the opponent needing more points raises it"
    assert post[0] == 0.5 and np.all(np.diff(post) < 0) and np.all(post > 0)
    # The free drop: at 2-away against 1-away the trailer is below even chances.
    assert post[1] < 0.5
    assert table.mwc(2, 1, post_crawford=True) == pytest.approx(post[1])
    assert table.mwc(1, 3, post_crawford=True) == pytest.approx(1.0 - post[2])


def test_the_crawford_row_follows_from_the_post_crawford_row_and_the_mars_rate():
    raw = json.loads((Path(bot.__file__).parent / "data" / LONG_NARDY_TABLE_FILE).read_text())
    mars, (low, high) = raw["mars_rate"], raw["mars_rate_95"]
    assert low < mars < high and raw["games"] >= 2000 and raw["variant"] == "long_nardy"
    pre, post = np.array(raw["pre_crawford"]), np.array(raw["post_crawford"])

    def trailer(away: int) -> float:
        return 1.0 if away <= 0 else float(post[away - 1])

    for away in range(1, 26):  # the Crawford game: no cube, even chances, a mars at the mars rate
        expected = 0.5 * ((1 - mars) * trailer(away - 1) + mars * trailer(away - 2))
        assert pre[away - 1, 0] == pytest.approx(expected, abs=2e-6)


def test_post_crawford_without_a_first_move_edge_has_no_free_drop():
    weights, even = np.full(21, 1 / 21), np.full(21, 0.5)
    mars = 0.2
    post = post_crawford(mars, weights, even, 8)
    plain = [1.0, 1.0, 1.0, 1.0]  # needing -3 .. 0 points
    for away in range(1, 9):
        plain.append(0.5 * ((1 - mars) * plain[-2] + mars * plain[-4]))
    np.testing.assert_allclose(post, plain[4:])
    # A first move worth 58%: the leader drops the trailer's double when it is the underdog, at no cost.
    edge = np.concatenate([np.full(10, 0.52), np.full(11, 0.636)])
    freed = post_crawford(mars, weights, edge, 8)
    assert freed[0] == pytest.approx(0.5) and freed[1] < post[1] - 0.02


def test_pre_crawford_without_mars_is_complementary_with_the_crawford_game_at_even_chances():
    post = post_crawford(0.0, np.ones(1), np.full(1, 0.5), 6)
    pre = pre_crawford(0.0, post)
    assert pre[0, 1] == pytest.approx(0.75)  # 1-away against 2-away: the trailer must win two games
    np.testing.assert_allclose(pre + pre.T, 1.0)
    # Without mars an odd away score is worth no more than the even one below it after the Crawford game.
    assert pre[1, 0] == pytest.approx(pre[2, 0]) == pytest.approx(0.25)
    assert np.all(np.diff(pre, axis=0) <= 1e-12) and np.all(np.diff(pre, axis=1) >= -1e-12)


def test_the_builder_writes_a_table_and_refuses_bad_options(tmp_path, capsys):
    out = tmp_path / "met.json"
    assert main(["--games", "4", "--size", "5", "--out", str(out)]) == 0
    assert "4 games: mars rate" in capsys.readouterr().out
    written = json.loads(out.read_text())
    assert np.array(written["pre_crawford"]).shape == (5, 5) and len(written["post_crawford"]) == 5
    assert main(["--games", "3", "--out", str(out)]) == 2
    assert capsys.readouterr().err == "error: --games 3: expected an even number of at least 4\n"
    for wrong in ("checkpoints/default.npz", str(tmp_path / "missing.npz")):
        assert main(["--checkpoint", wrong, "--games", "4", "--out", str(out)]) == 2
        error = capsys.readouterr().err
        assert error.startswith("error: ") and error.count("\n") == 1
