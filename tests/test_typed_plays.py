"""Typed plays are judged by the position they reach (engine.notation.parse_move, the terminal).

On random positions of every kind (contact, hits, the bar, bear-offs, doubles, rolls of
which only one die can be played): every legal play written step by step in every order,
through every intermediate point, and with a checker's consecutive steps written as one
move, reads back to the play with that afterstate; entries that reach no legal
afterstate are refused with a message naming the text.
"""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest

from bot.doors.terminal import TerminalSession
from bot.facade import Bot
from engine.errors import BackgammonError, IllegalMoveError
from engine.game import Game, Phase
from engine.match import MatchState
from engine import notation as notation_module
from engine.notation import format_play, parse_move
from engine.plays import Play, legal_plays
from engine.position import Position
from entry_cases import combined, entry_order, notation, situations
from fakes import PipEvaluator

# Twelve positions of each kind: each takes thousands of parses (every order of up to MAX_PLAYS plays).
CASES = situations(np.random.default_rng(20261204), 84)
MAX_PLAYS, MAX_ORDERS = 40, 8


def _label(case) -> str:
    return f"{Position(case.board).id}-{case.dice[0]}{case.dice[1]}-{case.kind}"


def _rng(case) -> np.random.Generator:
    """A generator seeded by the case, so that each case's entries are the same on every run."""
    return np.random.default_rng([int(x) for x in case.board.astype(np.uint8)] + list(case.dice))


def _afterstate(text: str, case) -> np.ndarray:
    return parse_move(text, case.board, case.dice).afterstate


def _hits(play: Play) -> set[int]:
    return {s.dst for s in play.steps if s.hit}


def test_the_cases_cover_every_kind():
    assert {c.kind for c in CASES} == {"bar", "bearoff", "contact", "doubles", "hits", "none", "partial"}


def test_the_reported_play_through_the_other_intermediate_point():
    """56 with checkers on 13, 8 and 7: 13/8 8/2 is 13/2, whichever way it is written."""
    b = np.zeros(26, dtype=np.int8)
    b[[13, 8, 7, 6, 24]] = [2, 2, 2, 5, 2]
    b[[1, 19, 12, 17]] = [-2, -5, -5, -3]
    for text in ("13/8 8/2", "8/2 13/8", "13/2", "13/7/2", "13/8/2", "13/7 7/2", "7/2 13/7"):
        assert format_play(parse_move(text, b, "56")) == "13/2", text
        assert format_play(parse_move(text, b, "65")) == "13/2", text
    with pytest.raises(IllegalMoveError, match="'13/4'"):
        parse_move("13/4", b, "56")


@pytest.fixture
def remembered_plays(monkeypatch):
    """parse_move with the legal plays of each (board, dice) listed once: the tests parse hundreds of texts per roll."""
    for name in ("legal_plays", "partial_plays"):
        monkeypatch.setattr(notation_module, name, _remembered(getattr(notation_module, name)))


def _remembered(listing):
    seen: dict[tuple[bytes, str], list[Play]] = {}

    def plays(board, dice) -> list[Play]:
        key = (np.asarray(board, dtype=np.int8).tobytes(), "".join(str(d) for d in sorted(dice)))
        if key not in seen:
            seen[key] = listing(board, dice)
        return seen[key]

    return plays


@pytest.mark.parametrize("case", CASES, ids=_label)
@pytest.mark.slow
def test_every_order_of_every_legal_play_is_accepted(case, remembered_plays):
    """Every order of a play's steps (a sample of MAX_ORDERS for doubles), on up to MAX_PLAYS plays of the roll."""
    rng = _rng(case)
    plays = legal_plays(case.board, case.dice)
    if len(plays) > MAX_PLAYS:
        plays = [plays[i] for i in rng.choice(len(plays), MAX_PLAYS, replace=False)]
    for play in plays:
        if not play.steps:
            assert parse_move("", case.board, case.dice).steps == ()
            continue
        orders = sorted({tuple(p) for p in itertools.permutations(play.steps)})
        if len(orders) > MAX_ORDERS:
            orders = [orders[i] for i in rng.choice(len(orders), MAX_ORDERS, replace=False)]
        for steps in orders:
            text = notation([(s.src, s.dst) for s in steps], _hits(play))
            assert np.array_equal(_afterstate(text, case), play.afterstate), f"{_label(case)} {text!r}"
        for _ in range(3):
            moves = combined(entry_order(case.board, play, rng), rng)
            text = notation(moves, _hits(play))
            assert np.array_equal(_afterstate(text, case), play.afterstate), f"{_label(case)} {text!r}"


@pytest.mark.parametrize("case", CASES, ids=_label)
@pytest.mark.slow
def test_a_checker_written_the_whole_way_reaches_a_legal_afterstate(case, remembered_plays):
    """'13/2' for 13/8/2: the checker's points between are left out; a hit on the way is read
    as GNU Backgammon reads it (a path hitting only where it lands when there is one)."""
    afterstates = [p.afterstate for p in legal_plays(case.board, case.dice)]
    for play in legal_plays(case.board, case.dice):
        text = notation(combined(list(play.steps), np.random.default_rng(0)), set())
        try:
            reached = _afterstate(text, case)
        except IllegalMoveError as error:
            assert "ambiguous" in str(error), f"{_label(case)} {text!r}: {error}"
            continue
        assert any(np.array_equal(reached, a) for a in afterstates), f"{_label(case)} {text!r}"


@pytest.mark.parametrize("case", CASES, ids=_label)
@pytest.mark.slow
def test_entries_that_reach_no_legal_afterstate_are_refused_with_a_message(case, remembered_plays):
    plays = legal_plays(case.board, case.dice)
    afterstates = {p.afterstate.tobytes() for p in plays}
    rng = _rng(case)
    tried = 0
    for play in plays[: MAX_PLAYS // 4]:
        if not play.steps:
            continue
        steps = list(play.steps)
        wrong: list[str] = [notation([(s.src, s.dst) for s in steps[:-1]], set())] if len(steps) > 1 else []
        last = steps[-1]
        for to in (last.dst - 1, last.dst + 1, last.dst - 7):
            if 0 <= to < last.src and to != last.dst:
                wrong.append(notation([(s.src, s.dst) for s in steps[:-1]] + [(last.src, to)], set()))
        empty = [p for p in range(2, 25) if case.board[p] <= 0]
        wrong.append(f"{empty[rng.integers(len(empty))]}/1")
        for text in wrong:
            try:
                reached = _afterstate(text, case)
            except BackgammonError as error:
                assert repr(text) in str(error) and len(str(error)) > len(repr(text)) + 10
                tried += 1
            else:
                assert reached.tobytes() in afterstates, f"{_label(case)} {text!r} reached an illegal position"
    if plays[0].steps:
        assert tried, f"{_label(case)}: no illegal entry tried"


def test_the_terminal_takes_any_order_and_refuses_with_the_reason():
    rng = np.random.default_rng(5)
    bot = Bot(PipEvaluator())
    for case in [c for c in CASES if c.kind != "none"][:40]:
        play = legal_plays(case.board, case.dice)[-1]
        text = notation([(s.src, s.dst) for s in entry_order(case.board, play, rng)], _hits(play))
        out = io.StringIO()
        session = TerminalSession(bot, 0, rng, io.StringIO(f"13/30\n24/off\n{text}\n"), out)
        game = Game(MatchState(), Phase.ROLLED, 0, Position(case.board), case.dice)
        after = session.person_moves(game)
        shown = out.getvalue()
        assert shown.count("Not played: move ") == 2, shown
        if isinstance(after, Game):
            assert np.array_equal(after.position.flipped().board, play.afterstate), f"{_label(case)} {text!r}"


def test_a_bear_off_by_either_die_reads_as_the_legal_play():
    b = np.zeros(26, dtype=np.int8)
    b[[1, 2]] = [7, 1]
    b[[20, 22, 23]] = [-5, -5, -5]
    for text in ("2/1 1/off", "1/off 2/1", "2/off"):
        assert format_play(parse_move(text, b, "15")) == "2/off", text
    assert format_play(parse_move("2/off 1/off", b, "15")) == "2/off 1/off"
