"""The bot facade (ranked plays, evaluation, cube) and the POSITION argument the doors read."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

from conftest import sure_gammon_network
from bot.evaluation.checkpoint import CheckpointError, save_checkpoint
from bot.equity.cube import CubeState, Owner, cube_decision, long_nardy_efficiencies, swap_state
from bot.equity.met import met_for
from bot.evaluation.evaluator import NetworkEvaluator, choose_afterstates
from bot import facade
from bot.search.nply import InvalidSearchError, probabilities_at
from bot.facade import ONE_PLY_CANDIDATES, Bot, Bots, default_checkpoint
from bot.evaluation.network import NetworkConfig
from training.torch_network import ValueNetwork
from bot.equity.outcomes import equity, invert
from bot.doors.situation import parse_position
from bot.equity.resign import InvalidResignationError, accept_resignation, offer_resignation
from engine.board import START, flip
from engine.errors import InvalidDiceError, InvalidMatchError, InvalidOptionError, InvalidPositionError
from engine.long_nardy import LongPosition
from engine.long_nardy import legal_plays as long_legal_plays
from engine.position import Position
from engine.variant import BACKGAMMON, LONG_NARDY
from engine.notation import format_play
from engine.plays import legal_plays
from engine.position_id import decode_position_id

# A middle-game position with many plays, from the move-choice fixtures' kind of play.
MIDGAME = decode_position_id("jGfkASjg8wcBMA")
# The mover on the bar against a closed board: no roll can be played.
CLOSED_OUT = np.zeros(26, dtype=np.int8)
CLOSED_OUT[[25, 13, 6]] = [1, 8, 6]
CLOSED_OUT[[19, 20, 21, 22, 23, 24]] = -2
CLOSED_OUT[1] = -3
MATCH = CubeState(match_length=7, score=(3, 5))


@pytest.fixture(scope="module")
def network() -> ValueNetwork:
    torch.manual_seed(0)
    return ValueNetwork(NetworkConfig(hidden=(16,))).eval()


@pytest.fixture(scope="module")
def bot(network) -> Bot:
    return Bot(NetworkEvaluator(network))


def test_ranked_plays_are_every_legal_play_best_first(bot):
    plays = legal_plays(MIDGAME, (6, 4))
    ranked = bot.rank_plays(MIDGAME, (6, 4))
    assert len(ranked) == len(plays)
    assert {r.notation for r in ranked} == {format_play(p) for p in plays}
    equities = [r.equity for r in ranked]
    assert equities == sorted(equities, reverse=True)
    children = np.stack([r.afterstate for r in ranked])
    expected = bot.evaluator.afterstate_probabilities(children)
    np.testing.assert_allclose(np.stack([r.probabilities for r in ranked]), expected, atol=1e-6)
    np.testing.assert_allclose(equities, equity(expected), atol=1e-5)
    assert all(r.plies == 0 and r.mwc is None for r in ranked)


def test_best_play_agrees_with_the_batched_move_choice(bot):
    for dice in [(3, 1), (6, 6), (5, 2), (4, 4)]:
        chosen = choose_afterstates(bot.evaluator, MIDGAME[None], np.array([dice]))[0]
        np.testing.assert_array_equal(bot.best_play(MIDGAME, dice).afterstate, chosen)


def test_top_keeps_the_best_n(bot):
    everything = bot.rank_plays(START, "31")
    top = bot.rank_plays(START, "31", top=3)
    assert [r.notation for r in top] == [r.notation for r in everything[:3]]
    with pytest.raises(ValueError, match="top 0"):
        bot.rank_plays(START, "31", top=0)


def test_one_ply_looks_again_at_the_best_candidates(bot):
    zero = bot.rank_plays(MIDGAME, (6, 4))
    one = bot.rank_plays(MIDGAME, (6, 4), plies=1)
    deep = [r for r in one if r.plies == 1]
    assert len(deep) == min(ONE_PLY_CANDIDATES, len(zero))
    assert one[: len(deep)] == deep  # the 1-ply plays come first
    assert {r.notation for r in deep} == {r.notation for r in zero[: len(deep)]}
    expected = probabilities_at(bot.evaluator, np.stack([r.afterstate for r in deep]), 1)
    np.testing.assert_allclose(np.stack([r.probabilities for r in deep]), expected, atol=1e-6)
    assert [r.equity for r in deep] == sorted((r.equity for r in deep), reverse=True)


def test_a_roll_that_cannot_be_played_gives_one_empty_play(bot):
    ranked = bot.rank_plays(CLOSED_OUT, (3, 5))
    assert len(ranked) == 1 and ranked[0].play.steps == () and ranked[0].notation == ""
    np.testing.assert_array_equal(ranked[0].afterstate, CLOSED_OUT)


def test_match_play_ranks_by_the_movers_match_winning_chance(bot):
    ranked = bot.rank_plays(MIDGAME, (6, 4), state=MATCH)
    mwcs = [r.mwc for r in ranked]
    assert mwcs == sorted(mwcs, reverse=True) and all(0.0 < m < 1.0 for m in mwcs)
    # The same number through another path: the opponent's evaluation, on roll after the play.
    best = ranked[0]
    assert best.mwc == pytest.approx(1.0 - bot.evaluate(flip(best.afterstate), swap_state(MATCH)).mwc, abs=1e-6)


def test_evaluate_gives_the_network_probabilities_and_the_cube_numbers(bot, network):
    result = bot.evaluate(MIDGAME)
    five = network.probabilities(MIDGAME[None])[0]
    np.testing.assert_allclose(result.probabilities, five, atol=1e-6)
    assert result.cubeless_equity == pytest.approx(float(equity(five)), abs=1e-5)
    assert result.cubeful_equity == pytest.approx(cube_decision(MIDGAME, five, CubeState()).equity, abs=1e-5)
    assert result.mwc is None and result.plies == 0
    in_match = bot.evaluate(MIDGAME, MATCH)
    assert 0.0 < in_match.mwc < 1.0
    assert bot.cube_decision(MIDGAME, MATCH) == in_match.cube


def test_one_ply_evaluation_averages_the_rolls_of_the_side_on_roll(bot):
    result = bot.evaluate(MIDGAME, plies=1)
    expected = invert(probabilities_at(bot.evaluator, flip(MIDGAME)[None], 1)[0])
    np.testing.assert_allclose(result.probabilities, expected, atol=1e-6)


def test_resignations_come_from_the_resign_rules_on_the_bots_probabilities(bot):
    five = bot.probabilities(MIDGAME)
    result = bot.resign_decision(MIDGAME, MATCH, level=2)
    assert result.offer == offer_resignation(MIDGAME, five, MATCH)
    assert result.opponent_accepts == accept_resignation(MIDGAME, five, MATCH, 2, resigner_on_roll=True)
    assert result.side_on_roll_accepts == accept_resignation(MIDGAME, five, MATCH, 2, resigner_on_roll=False)
    with pytest.raises(InvalidResignationError):
        bot.resign_decision(MIDGAME, level=4)


def test_swap_state_turns_the_score_and_the_cube_owner():
    state = CubeState(cube=4, owner=Owner.ME, match_length=9, score=(2, 6))
    assert swap_state(state) == CubeState(cube=4, owner=Owner.OPP, match_length=9, score=(6, 2))
    assert swap_state(swap_state(state)) == state


def test_probabilities_off_by_a_rounding_error_are_clipped():
    # The network's P(win) of 1.0000001 is clipped at the source.
    bot = Bot(NetworkEvaluator(sure_gammon_network()))
    result = bot.evaluate(START)
    assert result.probabilities.max() <= 1.0
    assert result.cubeless_equity == pytest.approx(2.0)
    # One ply deeper the side on roll moves first and the opponent, then on roll, wins the
    # gammon: an average of 21 sure gammons, which float32 roll weights would put past 1.
    deeper = bot.evaluate(START, plies=1)
    assert deeper.probabilities.max() <= 1.0
    assert deeper.cubeless_equity == pytest.approx(-2.0)


@pytest.mark.parametrize(
    "board, dice, error",
    [
        (np.full(26, 1), (3, 1), InvalidPositionError),
        (START, (0, 1), InvalidDiceError),
        (START, "3", InvalidDiceError),
        (np.where(START > 0, 0, START), (3, 1), InvalidPositionError),  # the mover has borne off
    ],
)
def test_bad_input_raises_a_named_error(bot, board, dice, error):
    with pytest.raises(error):
        bot.rank_plays(board, dice)


def test_game_over_and_bad_plies_are_refused(bot):
    with pytest.raises(InvalidPositionError, match="game is over"):
        bot.evaluate(np.where(START < 0, 0, START))
    with pytest.raises(InvalidSearchError, match="plies 3"):
        bot.evaluate(START, plies=3)


def test_concurrent_calls_give_the_same_answers(bot):
    expected = [r.notation for r in bot.rank_plays(MIDGAME, (5, 3))]
    answers, errors = [], []

    def work():
        try:
            for _ in range(5):
                answers.append([r.notation for r in bot.rank_plays(MIDGAME, (5, 3))])
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(answers) == 20 and all(a == expected for a in answers)


def test_load_reads_a_checkpoint_and_names_a_missing_one(tmp_path, network, monkeypatch):
    path = tmp_path / "tiny.pt"
    save_checkpoint(path, network)
    loaded = Bot.load(path)
    np.testing.assert_allclose(
        loaded.evaluate(MIDGAME).probabilities, network.probabilities(MIDGAME[None])[0], atol=1e-6
    )
    with pytest.raises(CheckpointError, match="no such file"):
        Bot.load(tmp_path / "missing.pt")
    monkeypatch.setenv("NARDY_CHECKPOINT", str(path))
    assert default_checkpoint() == path


def test_default_checkpoint_is_the_shipped_one(monkeypatch):
    monkeypatch.delenv("NARDY_CHECKPOINT", raising=False)
    assert default_checkpoint().parts[-2:] == ("checkpoints", "default.npz")


def test_default_checkpoint_lookup_order(tmp_path, monkeypatch):
    """$NARDY_CHECKPOINT, the repository's, the installation's data directory, the user's."""
    repo = tmp_path / "repo" / "checkpoints" / "default.npz"
    data, user = tmp_path / "prefix", tmp_path / "home"
    monkeypatch.delenv("NARDY_CHECKPOINT", raising=False)
    monkeypatch.setattr(facade, "REPO_CHECKPOINT", repo)
    monkeypatch.setattr(facade, "_data_directories", lambda: [data, user])
    assert default_checkpoint() == repo  # none there
    with pytest.raises(CheckpointError, match=f"no shipped network .*{user}/share/nardy/default.npz"):
        Bot.load()
    for path in (user / "share/nardy/default.npz", data / "share/nardy/default.npz", repo):
        path.parent.mkdir(parents=True)
        path.write_bytes(b"")
        assert default_checkpoint() == path  # found ahead of those made before it
    monkeypatch.setenv("NARDY_CHECKPOINT", str(tmp_path / "mine.pt"))
    assert default_checkpoint() == tmp_path / "mine.pt"


# ---------------------------------------------------------------- the POSITION argument


def test_a_position_id_alone_is_a_money_game_before_the_roll():
    s = parse_position(" 4HPwATDgc/ABMA ")
    np.testing.assert_array_equal(s.board, START)
    assert s.dice is None and s.state == CubeState() and not s.double_offered


def test_a_match_id_gives_dice_score_and_cube_seen_by_the_side_on_roll():
    # 9-point match, score 2-4 (player 0 - player 1), cube 2 owned by player 0, player 1 rolled 52.
    s = parse_position("sGfwATDgc/ABMA:QYkqASAAIAAA")
    assert s.dice == (5, 2)
    assert s.state == CubeState(cube=2, owner=Owner.OPP, match_length=9, score=(4, 2))
    assert s.position_id == "sGfwATDgc/ABMA"


def test_an_xgid_gives_board_dice_score_and_cube():
    start = parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    np.testing.assert_array_equal(start.board, START)
    assert start.dice is None and start.state == CubeState()
    # Top player on turn with 52, cube 2 owned by top, 9-point match, bottom 2 top 4.
    top = parse_position("XGID=-b----E-C---eE---c-e----B-:1:-1:-1:52:2:4:0:9:10")
    np.testing.assert_array_equal(top.board, flip(START))
    assert top.dice == (5, 2)
    assert top.state == CubeState(cube=2, owner=Owner.ME, match_length=9, score=(4, 2))
    offered = parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:3:0:10")
    assert offered.double_offered and offered.state.jacoby and offered.state.beavers


@pytest.mark.parametrize(
    "text, error, named",
    [
        ("nonsense", InvalidPositionError, "nonsense"),
        ("4HPwATDgc/ABM!", InvalidPositionError, "4HPwATDgc/ABM!"),
        ("4HPwATDgc/ABMA:short", InvalidMatchError, "short"),
        ("XGID=-b----E-C---eE", InvalidPositionError, "XGID"),
    ],
)
def test_bad_positions_name_the_text(text, error, named):
    with pytest.raises(error, match=named.replace("/", ".").replace("!", ".")):
        parse_position(text)


# ---------------------------------------------------------------- long nardy


@pytest.fixture(scope="module")
def long_bot() -> Bot:
    torch.manual_seed(1)
    return Bot(NetworkEvaluator(ValueNetwork(NetworkConfig("long_nardy", (16,))).eval(), LONG_NARDY))


def long_midgame() -> np.ndarray:
    """A long nardy position eight moves into a game, each side with two or three checkers off its head."""
    return LongPosition.from_id("ICAgP/wCQAD/+").board


def test_a_long_nardy_bot_ranks_every_legal_play_of_its_game(long_bot):
    board = long_midgame()
    plays = long_legal_plays(board, (6, 5))
    ranked = long_bot.rank_plays(board, (6, 5))
    assert long_bot.variant is LONG_NARDY
    assert {r.notation for r in ranked} == {LONG_NARDY.format_play(p) for p in plays}
    assert [r.equity for r in ranked] == sorted((r.equity for r in ranked), reverse=True)
    best = ranked[0]
    assert isinstance(best.position, LongPosition) and np.array_equal(best.position.board, best.afterstate)
    assert best.probabilities[2] == 0.0 and best.probabilities[4] == 0.0  # long nardy has no backgammons
    win, win_mars, lose_mars = best.game_probabilities
    assert (win, win_mars, lose_mars) == (best.probabilities[0], best.probabilities[1], best.probabilities[3])
    assert best.equity == pytest.approx(2 * win - 1 + win_mars - lose_mars, abs=1e-6)
    deeper = long_bot.rank_plays(board, (6, 5), plies=1, top=2)
    assert len(deeper) == 2 and deeper[0].plies == 1 and deeper[0].notation in {r.notation for r in ranked}


def test_long_nardy_probabilities_are_the_networks_before_the_roll_without_backgammons(long_bot):
    board = long_midgame()
    five = long_bot.probabilities(board)
    network = invert(probabilities_at(long_bot.evaluator, LONG_NARDY.flip(board)[None], 0)[0])
    np.testing.assert_allclose(five[[0, 1, 3]], network[[0, 1, 3]], atol=1e-6)
    assert five[2] == 0.0 and five[4] == 0.0


def test_the_long_nardy_cube_is_the_model_at_long_nardys_own_efficiency(long_bot):
    board = long_midgame()
    efficiency = float(long_nardy_efficiencies(board[None])[0])
    owned = CubeState(cube=2, owner=Owner.ME)
    decision = long_bot.cube_decision(board, owned)
    expected = cube_decision(board, long_bot.probabilities(board), owned, efficiency=efficiency)
    assert decision.cube_efficiency == pytest.approx(efficiency)
    assert (decision.verdict, decision.no_double, decision.double_take) == (
        expected.verdict,
        pytest.approx(expected.no_double),
        pytest.approx(expected.double_take),
    )
    evaluation = long_bot.evaluate(board, plies=1)
    assert evaluation.plies == 1 and evaluation.cube.cube_efficiency == pytest.approx(efficiency)
    assert long_bot.should_double(board) == long_bot.cube_decision(board).should_double


def test_long_nardy_resigns_a_single_game_or_a_mars_and_nothing_more(long_bot):
    board = long_midgame()
    mars = long_bot.resign_decision(board, level=2)
    assert mars.side_on_roll_accepts.equity_accept == pytest.approx(2.0)  # the opponent gives up a mars
    assert mars.opponent_accepts.equity_accept == pytest.approx(2.0)
    assert mars.offer.level in (None, 1, 2)
    with pytest.raises(InvalidResignationError, match=r"level 3: expected 1 \(oin\) or 2 \(mars\)"):
        long_bot.resign_decision(board, level=3)


def test_a_position_of_the_other_game_is_refused_by_name(bot, long_bot):
    with pytest.raises(InvalidPositionError, match="is a backgammon position, expected a long nardy one"):
        long_bot.rank_plays(Position(START), (3, 1))
    with pytest.raises(InvalidPositionError, match="is a long nardy position, expected a backgammon one"):
        bot.evaluate(LongPosition(LONG_NARDY.start))


def test_bots_keep_the_bots_given_and_load_each_other_game_once(bot, long_bot, monkeypatch):
    loaded: list[str] = []

    def load(cls, checkpoint=None, variant=BACKGAMMON):
        loaded.append(variant.name)
        return long_bot

    monkeypatch.setattr(Bot, "load", classmethod(load))
    bots = Bots(bot)
    assert bots["bg"] is bot and bots[BACKGAMMON] is bot and loaded == []
    threads = [threading.Thread(target=lambda: bots["long"]) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert bots["Long-Nardy"] is long_bot and loaded == ["long_nardy"]
    assert sorted(bots) == ["backgammon", "long_nardy"]
    with pytest.raises(InvalidOptionError, match="variant 'chess'"):
        bots["chess"]


def test_long_nardy_at_a_match_score_is_priced_by_its_own_match_equity_table(long_bot):
    board = long_midgame()
    state = CubeState(match_length=5, score=(2, 3))
    five = long_bot.probabilities(board)
    efficiency = long_bot.cube_decision(board).cube_efficiency
    decision = long_bot.cube_decision(board, state)
    expected = cube_decision(board, five, state, met=met_for("long"), efficiency=efficiency)
    assert decision.mwc_no_double == pytest.approx(expected.mwc_no_double)
    assert decision.mwc_no_double != pytest.approx(
        cube_decision(board, five, state, efficiency=efficiency).mwc_no_double
    )
    ranked = long_bot.rank_plays(board, (6, 5), state=state)
    assert all(r.mwc is not None and 0.0 <= r.mwc <= 1.0 for r in ranked)
    assert [r.mwc for r in ranked] == sorted((r.mwc for r in ranked), reverse=True)
    crawford = CubeState(match_length=5, score=(4, 2), crawford=True)
    assert not long_bot.should_double(board, crawford)
    resign = long_bot.resign_decision(board, state, level=2)  # a mars given up: 3-away, 2-away becomes 1-away
    assert resign.side_on_roll_accepts.mwc_accept == pytest.approx(met_for("long").mwc(1, 2))
