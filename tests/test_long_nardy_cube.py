"""Long nardy's own cube: the efficiency the long nardy bot prices its cube at, the variant-aware cubeful
lookahead it was fitted to, and the benchmark set that measures it (``benchmarks.long_nardy_cube``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import long_nardy_cube as bench
from bot.equity.cube import (
    LONG_NARDY_EFFICIENCY,
    LONG_NARDY_END_EFFICIENCY,
    LONG_NARDY_RAMP_PIPS,
    CubeState,
    Owner,
    Verdict,
    cube_decision,
    cube_efficiencies,
    long_nardy_efficiencies,
    long_nardy_race_efficiencies,
)
from bot.equity.met import met_for
from bot.facade import Bot, default_long_nardy_checkpoint
from bot.search.cube_decision import lookahead_cube_decision
from engine.board import START as BACKGAMMON_START
from engine.long_nardy.board import START, board_from_side_counts

pytestmark = pytest.mark.skipif(not default_long_nardy_checkpoint().is_file(), reason="no shipped long nardy network")
MONEY = CubeState()


def race(mover: dict[int, int], opponent: dict[int, int]) -> np.ndarray:
    """The board (mover's view) of each side's checkers on its own points, the rest borne off."""
    counts = [[0] * 24, [0] * 24]
    for side, checkers in enumerate((mover, opponent)):
        for point, count in checkers.items():
            counts[side][point - 1] = count
    return board_from_side_counts(counts[0], counts[1], "test race")


# The side on roll nearly off (22 pips), the opponent with nothing home: a win for sure, a mars most of the time.
HUGE_LEAD = race({1: 8, 2: 7}, {7: 3, 8: 3, 9: 3, 10: 2, 11: 2, 12: 2})
# The side on roll bears its last checker off with any roll; the opponent has none off: a mars, 2 points.
LAST_CHECKER = race({1: 1}, {7: 3, 8: 3, 9: 3, 10: 2, 11: 2, 12: 2})


@pytest.fixture(scope="module")
def long_bot() -> Bot:
    return Bot.load(variant="long")


def test_the_long_nardy_bot_prices_its_cube_at_long_nardys_own_efficiency(long_bot):
    boards = np.stack([START, HUGE_LEAD, LAST_CHECKER])
    assert np.array_equal(long_bot.cube_efficiencies(boards), long_nardy_efficiencies(boards))
    assert long_bot.cube_decision(START).cube_efficiency == pytest.approx(LONG_NARDY_EFFICIENCY)
    # The line from the end of the race to the flat part, not backgammon's race efficiency.
    assert long_nardy_efficiencies(race({}, {7: 15}))[0] == pytest.approx(LONG_NARDY_END_EFFICIENCY)
    point = max(1, LONG_NARDY_RAMP_PIPS // 30)  # fifteen checkers there: about halfway up the line
    ramp = race({point: 15}, {7: 15})
    assert 15 * point < LONG_NARDY_RAMP_PIPS
    assert long_nardy_efficiencies(ramp)[0] == pytest.approx(
        LONG_NARDY_END_EFFICIENCY
        + (LONG_NARDY_EFFICIENCY - LONG_NARDY_END_EFFICIENCY) * (15 * point) / LONG_NARDY_RAMP_PIPS
    )
    assert not np.allclose(long_nardy_efficiencies(boards), long_nardy_race_efficiencies(boards))


def test_an_even_position_is_no_double_and_a_huge_race_lead_is_too_good_to_double(long_bot):
    start = long_bot.cube_decision(START)
    assert start.verdict is Verdict.NODOUBLE_TAKE and not start.should_double and start.should_take
    for plies in (0, 1):
        lead = long_bot.cube_decision(HUGE_LEAD, plies=plies)
        assert lead.verdict is Verdict.TOOGOOD_PASS and not lead.should_double and not lead.should_take
    match = CubeState(match_length=7, score=(2, 3))
    assert long_bot.cube_decision(START, match).verdict is Verdict.NODOUBLE_TAKE


def test_the_lookahead_plays_long_nardy_and_scores_its_mars(long_bot):
    # Every roll bears the last checker off against a side with none off: a mars, 2 points a cube.
    decision = lookahead_cube_decision(long_bot.evaluator, LAST_CHECKER, MONEY, 1, efficiencies=long_nardy_efficiencies)
    assert (decision.no_double, decision.double_take) == (2.0, 4.0)
    assert decision.verdict is Verdict.TOOGOOD_PASS
    owned = CubeState(cube=2, owner=Owner.ME, match_length=7, score=(0, 0))
    met = met_for("long_nardy")
    in_match = lookahead_cube_decision(
        long_bot.evaluator, LAST_CHECKER, owned, 2, met, efficiencies=long_nardy_efficiencies
    )
    assert in_match.mwc_no_double == pytest.approx(met.mwc(7 - 4, 7, False))  # 2 x cube 2 won


def test_deeper_the_long_nardy_bot_decides_by_the_lookahead_at_its_own_efficiency(long_bot):
    board = bench.boards_of(bench.load_set(bench.SET, "measure")[:1])[0]
    state = CubeState(match_length=5, score=(1, 2))
    met = met_for("long_nardy")
    expected = lookahead_cube_decision(long_bot.evaluator, board, state, 1, met, efficiencies=long_nardy_efficiencies)
    assert long_bot.cube_decision(board, state, plies=1) == expected


def test_backgammons_cube_is_unchanged():
    bot = Bot.load()
    boards = np.stack([BACKGAMMON_START])
    assert np.array_equal(bot.cube_efficiencies(boards), cube_efficiencies(boards))
    decision = bot.cube_decision(BACKGAMMON_START)
    assert decision.cube_efficiency == pytest.approx(0.68)  # GNU Backgammon's contact efficiency
    expected = cube_decision(BACKGAMMON_START, bot.probabilities(BACKGAMMON_START), MONEY)
    assert (decision.verdict, decision.no_double) == (expected.verdict, pytest.approx(expected.no_double))


def test_the_committed_set_has_both_parts_of_near_decisions():
    records = {part: bench.load_set(bench.SET, part) for part in bench.PARTS}
    assert all(len(part) >= 500 for part in records.values())
    for record in records["fit"][:50] + records["measure"][:50]:
        assert bench.state_of(record).can_double
        assert bench.WIN_RANGE[0] <= record["probabilities"][0] <= bench.WIN_RANGE[1]
        assert record["should_take"] == (record["double_take"] <= 1.0)
    # The parts come from different self-play games: only the odd opening position recurs, at the same cube state.
    keys = [
        {(r["position_id"], json.dumps(bench.state_of(r).__dict__, default=str)) for r in part}
        for part in records.values()
    ]
    assert len(keys[0] & keys[1]) <= len(records["measure"]) // 100


@pytest.mark.slow
def test_the_shipped_constants_are_the_fit_on_the_committed_set():
    found = bench.fit(bench.load_set(bench.SET, "fit"))
    assert (found.end, found.full, found.ramp_pips) == (
        LONG_NARDY_END_EFFICIENCY,
        LONG_NARDY_EFFICIENCY,
        LONG_NARDY_RAMP_PIPS,
    )


@pytest.mark.slow
def test_building_a_set_resumes_where_it_stopped_and_refuses_another_networks(tmp_path):
    path = tmp_path / "cube.jsonl"
    first = bench.build(default_long_nardy_checkpoint(), path, 2, seed=5)
    assert [r["part"] for r in first] == ["fit", "fit", "measure", "measure"]
    more = bench.build(default_long_nardy_checkpoint(), path, 3, seed=5)
    assert [r["part"] for r in more].count("measure") == 3
    assert [r for r in more if r["part"] == "fit"][:2] == first[:2]
    lines = path.read_text().splitlines()
    stale = json.loads(lines[0]) | {"network": "000000000000"}
    path.write_text(json.dumps(stale) + "\n")
    with pytest.raises(bench.SetError, match="another network"):
        bench.build(default_long_nardy_checkpoint(), path, 3, seed=5)


def test_the_benchmark_prints_both_models_agreement_with_intervals(tmp_path, capsys):
    path = tmp_path / "cube.jsonl"
    records = bench.load_set(bench.SET, "fit")[:5] + bench.load_set(bench.SET, "measure")[:20]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert bench.main(["--set", str(path)]) == 0
    out = capsys.readouterr().out
    assert "measure part (held out), 20 positions" in out
    assert "borrowed (backgammon's race)" in out and "long nardy's own" in out
    assert out.count("doubler ") >= 3 and "taker " in out and "equity given away" in out
    missing = tmp_path / "none.jsonl"
    assert bench.main(["--set", str(missing)]) == 2
