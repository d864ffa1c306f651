"""Long nardy match records: played against the heuristic, written as .mat, read back, analysed (CLI and HTTP)."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from bot.doors.cli import run
from bot.doors.http_app import create_app
from bot.equity.cube import CubeState
from bot.facade import Bot
from bot.play.analysis import analyze_match
from bot.play.match_play import HeuristicPlayer, play_match
from engine.errors import BackgammonError
from engine.long_nardy.rules import Rules
from engine.matfile import InvalidMatFileError, MatAction, MatGame, MatMatch, format_mat, parse_mat, replay_game
from engine.plays import Play
from engine.variant import long_nardy_variant

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")
    from fastapi.testclient import TestClient

MATCH_RULES = Rules(cube="doubling")


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(list(argv), io.StringIO(""), out, err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """A 3-point match of the bot against the heuristic written by `nardy match`, the first seed whose match has
    a Crawford game (several matches: the tests on it are slow)."""
    folder = tmp_path_factory.mktemp("records")
    for seed in range(40):
        path = folder / f"match-{seed}.mat"
        status, out, err = cli(
            "match", "--variant", "long", "--length", "3", "--opponent", "heuristic", "--mat", str(path),
            "--seed", str(seed),
        )  # fmt: skip
        assert status == 0, err
        if "(Crawford game)" in path.read_text():
            assert "nardy vs heuristic" in out and "Mars won" in out and "Backgammons" not in out
            return path
    raise AssertionError("no seed of 40 gave a 3-point match with a Crawford game")


@pytest.mark.slow
def test_the_record_names_the_game_the_length_and_the_crawford_game(recorded):
    text = recorded.read_text()
    assert text.startswith('; [Variation "Long Nardy"]\n; [Rules "opening=classic head-doubles=346 ')
    assert "cube=doubling" in text and "\n 3 point match\n" in text
    match = parse_mat(text)
    assert match.variant == "long_nardy" and match.rules == MATCH_RULES and match.length == 3
    assert match.players == ("nardy", "heuristic") and max(match.final_score) >= 3
    crawford = [g for g in match.games if g.crawford]
    assert len(crawford) == 1 and 2 in crawford[0].score
    for game in match.games:  # every move is a legal long nardy play, every game played to its end
        assert replay_game(game, match.game).over
    assert all("*" not in a.move and "25" not in a.move for g in match.games for a in g.actions)


@pytest.mark.slow
def test_the_recorded_match_is_analysed_with_the_variant_named(recorded):
    status, out, err = cli("analyze", str(recorded), "--json", "--plies", "0")
    assert status == 0, err
    data = json.loads(out)
    assert data["variant"] == "long_nardy" and data["length"] == 3
    assert [p["name"] for p in data["players"]] == ["nardy", "heuristic"]
    assert len(data["games"]) == len(parse_mat(recorded.read_text()).games)
    heuristic = data["players"][1]
    assert heuristic["checker"]["unforced"] > 0 and heuristic["pr"] > 0
    assert "error_rate_mwc" in heuristic["checker"] and "luck_rate_memg" in heuristic
    moves = [d for g in data["games"] for d in g["decisions"] if d["kind"] == "move"]
    assert all(d["mark"] in (None, "doubtful", "bad", "very bad") and d["luck"] is not None for d in moves)
    assert any(d["mark"] for d in moves)  # the heuristic errs against the network
    assert all(len(d["position_id"]) == 13 for d in moves)  # long nardy Position IDs, not backgammon's 14


def test_the_heuristic_doubles_and_takes_as_a_race():
    game = long_nardy_variant(MATCH_RULES)
    heuristic = HeuristicPlayer(game)
    ahead = np.array(game.start)
    ahead[24], ahead[1] = 0, 15  # the side on roll is nearly home, the opponent still on its head
    assert heuristic.should_double(ahead, CubeState())
    assert not heuristic.should_take(ahead, CubeState())
    assert heuristic.should_take(game.start, CubeState())


class RandomPlayer:
    """Random legal plays; doubles and takes at random."""

    def __init__(self, name: str, rules: Rules, rng: np.random.Generator) -> None:
        self.name, self.game, self.rng = name, long_nardy_variant(rules), rng

    def choose_play(self, board: np.ndarray, dice: tuple[int, int], state: CubeState) -> Play:
        plays = self.game.legal_plays(board, dice)
        return plays[int(self.rng.integers(len(plays)))]

    def should_double(self, board: np.ndarray, state: CubeState) -> bool:
        return bool(self.rng.random() < 0.05)

    def should_take(self, board: np.ndarray, state: CubeState) -> bool:
        return bool(self.rng.random() < 0.7)


@pytest.mark.parametrize("seed", range(6))
def test_random_matches_round_trip(seed):
    rng = np.random.default_rng(seed)
    rules = Rules(
        opening=("classic", "sport")[seed % 2],
        head_doubles="46" if seed % 3 else "346",
        block_check=("step", "turn")[seed // 3 % 2],
        cube="doubling",
        last_roll_draw=seed % 2 == 1,
    )
    players = [RandomPlayer("Alice", rules, rng), RandomPlayer("Bob", rules, rng)]
    played = play_match(players, int(rng.integers(0, 6)), rng, games=3, variant=long_nardy_variant(rules))
    record = played.record()
    back = parse_mat(format_mat(record))
    assert back == record and back.rules == rules and back.variant == "long_nardy"
    assert back.final_score == played.state.score
    for game in back.games:
        assert replay_game(game, back.game).over


@pytest.mark.slow
def test_the_reader_refuses_the_other_games_record(recorded):
    long_text = recorded.read_text()
    with pytest.raises(InvalidMatFileError, match="a long nardy match record, not a backgammon one"):
        parse_mat(long_text, variant="backgammon")
    assert parse_mat(long_text, variant="long").variant == "long_nardy"
    backgammon = MatMatch(1, ("Alice", "Bob"), (MatGame((0, 0), (MatAction.of_move(0, (3, 1), "8/5 6/5"),)),))
    with pytest.raises(InvalidMatFileError, match="a backgammon match record, not a long nardy one"):
        parse_mat(format_mat(backgammon), variant="long-nardy")
    assert parse_mat(format_mat(backgammon), variant="bg").variant == "backgammon"
    # A backgammon game under a long nardy header is refused at its first move, and the other way round.
    relabelled = format_mat(MatMatch(1, ("Alice", "Bob"), backgammon.games, variant="long_nardy"))
    with pytest.raises(InvalidMatFileError, match="game action 1"):
        replay_game(parse_mat(relabelled).games[0], parse_mat(relabelled).game)
    unlabelled = parse_mat(long_text.split("\n", 2)[2])  # the header lines cut: read as backgammon
    assert unlabelled.variant == "backgammon"
    with pytest.raises(InvalidMatFileError):
        replay_game(unlabelled.games[0])
    with pytest.raises(InvalidMatFileError, match="variation 'NackGammon': not a game nardy plays"):
        parse_mat('; [Variation "NackGammon"]\n' + format_mat(backgammon))
    with pytest.raises(BackgammonError, match="a long nardy match cannot be analysed by a backgammon bot"):
        analyze_match(Bot.load(), parse_mat(long_text))


def test_a_crawford_mark_must_fit_the_score():
    text = " 3 point match\n\n Game 1 (Crawford game)\n A : 0                          B : 0\n"
    with pytest.raises(InvalidMatFileError, match="a Crawford game needs exactly one side at 2"):
        parse_mat(text)


@pytest.mark.slow
def test_post_analyze_answers_a_long_nardy_match(recorded):
    client = TestClient(create_app(Bot.load()))
    answer = client.post("/v1/analyze", content=recorded.read_bytes(), headers={"content-type": "text/plain"})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["variant"] == "long_nardy" and data["length"] == 3 and data["chart"].startswith("<svg")
    assert [p["name"] for p in data["players"]] == ["nardy", "heuristic"]
    damaged = recorded.read_text().replace("Long Nardy", "Short Backgammon")
    answer = client.post("/v1/analyze", content=damaged.encode(), headers={"content-type": "text/plain"})
    assert answer.status_code == 400 and "Short Backgammon" in answer.json()["message"]
