"""The web board's long nardy game: the stateless steps of ``bot.doors.web_views`` for a ``LongGame``.

``bot.doors.web_app`` sends here every ``/v1/game/...`` request whose game token is a long
nardy one (``is_long_token``), and ``/v1/game/new`` with ``variant=long``. The page holds the
token, as for backgammon; long nardy has no Match ID, so the token is the game's own record::

    long:POSITIONID:PHASE:TURN:FIRST:DICE:CUBE:OWNER:HUMAN-BOT:CUBERULE

``POSITIONID`` the long nardy Position ID seen by the side on roll (the start in the
opening); ``PHASE`` opening, roll, move or doubled; ``TURN``, ``FIRST`` (who started) and
``OWNER`` (of the cube) ``h`` (the human), ``b`` (the bot) or ``-`` (none); ``DICE`` e.g. ``31``
or ``-``; ``CUBE`` the stake; ``HUMAN-BOT`` the money session's score; ``CUBERULE`` ``none``
or ``doubling``. The engine's ``LongGame`` checks that the fields agree. A finished game's
token is the next game's, before its opening throw.

Seats as in backgammon: the human 0, the bot 1. ``GameView.board`` is in the human's view
(its head is its 24, the bot's head its 12); legal plays are in the human's numbering. Money
play with the default rule flags; the bot (long nardy's ``Bot``, ``bot.facade``) plays at 0-ply or deeper and
doubles, takes and passes by its money cube decision. A resignation ends the game at once (R15:
oin once a checker is off, else mars), so the bot never offers one.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Optional

import numpy as np

from bot.doors.web_views import (
    MAX_MONEY_SCORE,
    BotMoveView,
    GameRequest,
    GameResult,
    GameView,
    HowEnded,
    LegalPlayView,
    NewGameRequest,
    PairView,
    PlayRequest,
    Phase as PagePhase,
    Side,
    step_views,
)
from bot.equity.cube import CubeDecision, CubeState, Owner
from bot.facade import Bot
from bot.play.levels import level_named
from engine.board import validate_dice
from engine.errors import IllegalMoveError, InvalidMatchError, quote
from engine.game import Phase
from engine.long_nardy import (
    DEFAULT_RULES,
    LongGame,
    LongGameResult,
    START,
    LongPosition,
    check_game_on,
    flip,
    format_play,
    legal_plays,
    new_long_game,
    parse_long_move,
    pip_counts,
)
from engine.match import MAX_CUBE, MatchState, Outcome, roll_dice

HUMAN, BOT = 0, 1
PREFIX = "long"
_SIDES: tuple[Side, Side] = ("human", "bot")
_SEATS = {"h": HUMAN, "b": BOT, "-": None}
_SEAT_LETTERS = {seat: letter for letter, seat in _SEATS.items()}
_PHASES: dict[PagePhase, Phase] = {
    "opening": Phase.OPENING,
    "roll": Phase.BEFORE_ROLL,
    "move": Phase.ROLLED,
    "doubled": Phase.DOUBLED,
}
_PHASE_NAMES: dict[Phase, PagePhase] = {phase: name for name, phase in _PHASES.items()}
_HOW: dict[Outcome, HowEnded] = {Outcome.SINGLE: "oin", Outcome.GAMMON: "mars"}
_FIELDS = "long:POSITIONID:PHASE:TURN:FIRST:DICE:CUBE:OWNER:HUMAN-BOT:CUBERULE"
_DICE = re.compile(r"[1-6]{2}", re.ASCII)
_NUMBER = re.compile(r"[0-9]{1,5}", re.ASCII)
_SCORE = re.compile(r"([0-9]{1,5})-([0-9]{1,5})", re.ASCII)


def is_long_token(token: str) -> bool:
    """Whether a game token is a long nardy game's (a backgammon token is ``PositionID:MatchID``)."""
    return token.strip().startswith(PREFIX + ":")


# ---------------------------------------------------------------- the game token


def _token(game: LongGame) -> str:
    dice = "-" if game.dice is None else f"{game.dice[0]}{game.dice[1]}"
    human, bot = game.match.score
    return ":".join(
        [
            PREFIX,
            game.position.id,
            _PHASE_NAMES[game.phase],
            _SEAT_LETTERS[game.turn],
            _SEAT_LETTERS[game.first_mover],
            dice,
            str(game.cube),
            _SEAT_LETTERS[game.cube_owner],
            f"{human}-{bot}",
            game.rules.cube,
        ]
    )


def _read(token: str) -> LongGame:
    """The game a long nardy token describes; an engine error naming the field that is wrong otherwise.

    The token is open (docs/http_limits.md), so each field is checked to be one a game against the bot
    reaches: a position with a game on, the start in the opening, dice only to be played, a cube that is
    a power of two up to ``MAX_CUBE`` (below it when doubled), centred only on 1 and doubled only by a
    side with access, and a money score the next win still fits.
    """
    what = f"game {quote(token, 60)}"
    parts = token.strip().replace(" ", "+").split(":")
    if len(parts) != 10 or parts[0] != PREFIX:
        raise InvalidMatchError(f"{what}: expected {_FIELDS}")
    _, position_id, phase, turn, first, dice, cube, owner, score, cube_rule = parts

    def refuse(field: str, value: str, expected: str) -> InvalidMatchError:
        return InvalidMatchError(f"{what}: {field} {quote(value, 20)}: expected {expected}")

    if phase not in _PHASES:
        raise refuse("PHASE", phase, "opening, roll, move or doubled")
    stage = _PHASES[phase]  # type: ignore[index]  # checked just above
    opening = stage is Phase.OPENING
    for field, seat in (("TURN", turn), ("FIRST", first)):
        if seat not in _SEATS or (seat == "-") != opening:
            raise refuse(field, seat, "'-' in the opening, else h (you) or b (the bot)")
    if (dice == "-") == (stage is Phase.ROLLED) or (dice != "-" and not _DICE.fullmatch(dice)):
        raise refuse("DICE", dice, "two dice 1..6 in the phase move, else '-'")
    if cube_rule not in ("none", "doubling"):
        raise refuse("CUBERULE", cube_rule, "none or doubling")
    stake = int(cube) if _NUMBER.fullmatch(cube) else 0
    highest = 1 if cube_rule == "none" or opening else MAX_CUBE // 2 if stage is Phase.DOUBLED else MAX_CUBE
    if not 1 <= stake <= highest or stake & (stake - 1):
        raise refuse("CUBE", cube, f"a power of two 1..{highest} (phase {phase}, cube rule {cube_rule})")
    if owner not in _SEATS or (owner == "-") != (stake == 1):
        raise refuse("OWNER", owner, "'-' (centred) with the cube on 1, else h or b (who took it)")
    if stage is Phase.DOUBLED and owner not in ("-", turn):
        raise refuse("OWNER", owner, f"'-' or {turn}: the side doubling ({turn}) needs access to the cube")
    scores = _SCORE.fullmatch(score)
    if scores is None:
        raise refuse("HUMAN-BOT", score, "the money score, e.g. 3-1")
    human, bot = int(scores[1]), int(scores[2])
    if not (human <= MAX_MONEY_SCORE and bot <= MAX_MONEY_SCORE):
        raise InvalidMatchError(f"{what}: money score {human}-{bot}; at most {MAX_MONEY_SCORE} points each")
    position = LongPosition.from_id(position_id)
    check_game_on(position.board, f"{what}: POSITIONID")
    if opening and position != LongPosition(START):
        raise refuse("POSITIONID", position_id, f"the start, {LongPosition(START).id}, in the opening")
    return LongGame(
        replace(DEFAULT_RULES, cube=cube_rule),
        MatchState(score=(human, bot)),
        stage,
        _SEATS[turn],
        position,
        None if dice == "-" else validate_dice(dice),
        stake,
        _SEATS[owner],
        _SEATS[first],
    )


def _require(game: LongGame, seat: int, action: str, *phases: Phase) -> LongGame:
    """The game, if ``seat`` is to act in one of ``phases``; else IllegalMoveError naming ``action``."""
    actor = HUMAN if game.actor is None else game.actor  # the human throws the opening
    if game.phase in phases and actor == seat:
        return game
    raise IllegalMoveError(f"{action}: not possible now (phase {_PHASE_NAMES[game.phase]}, {_SIDES[actor]} to act)")


# ---------------------------------------------------------------- answering


def _view(
    step: LongGame | LongGameResult,
    events: list[str],
    bot_move: Optional[BotMoveView] = None,
    result: Optional[GameResult] = None,
) -> GameView:
    """What the page draws: a game, or a finished game (phase over, the token the next game's)."""
    phase: PagePhase
    if isinstance(step, LongGame):
        game, on_roll, phase = step, HUMAN if step.turn is None else step.turn, _PHASE_NAMES[step.phase]
        actor = HUMAN if step.actor is None else step.actor
    else:
        assert step.winner is not None, "no last-roll draws under the default rules"
        game, on_roll, actor, phase = new_long_game(step.next_match, step.rules), step.winner, step.winner, "over"
    seen = step.position  # a game's by the side on roll, a finished game's by the winner
    board = seen.board if on_roll == HUMAN else flip(seen.board)
    plays: list[LegalPlayView] = []
    if isinstance(step, LongGame) and step.phase is Phase.ROLLED and on_roll == HUMAN and step.dice is not None:
        plays = [LegalPlayView(move=format_play(p), steps=step_views(p)) for p in legal_plays(step.board, step.dice)]
    human_pips, bot_pips = pip_counts(board)
    with_cube = game.rules.cube != "none"
    owner = step.cube_owner if isinstance(step, LongGame) else None
    score = game.match.score
    return GameView(
        variant="long",
        game=_token(game),
        position_id=seen.id,
        match_id="",
        phase=phase,
        turn=_SIDES[actor],
        on_roll=_SIDES[on_roll],
        board=[int(x) for x in board],
        dice=step.dice if isinstance(step, LongGame) else None,
        may_double=isinstance(step, LongGame) and step.may_double,
        cube=(step.cube if isinstance(step, LongGame) else 1) if with_cube else 0,
        cube_owner=None if owner is None else _SIDES[owner],
        match_length=0,
        score=PairView(human=score[HUMAN], bot=score[BOT]),
        crawford=False,
        post_crawford=False,
        pips=PairView(human=human_pips, bot=bot_pips),
        plays=plays,
        events=events,
        bot_move=bot_move,
        result=result,
        resignation=None,
    )


def _answer(step: LongGame | LongGameResult, events: list[str], bot_move: Optional[BotMoveView] = None) -> GameView:
    """The view after an action: the game, or the game over with its result."""
    if isinstance(step, LongGame):
        return _view(step, events, bot_move)
    assert step.winner is not None, "no last-roll draws under the default rules"
    name = "You win" if step.winner == HUMAN else "nardy wins"
    events.append(f"{name} {step.points} point{'s' if step.points != 1 else ''}")
    how: HowEnded = "resign" if step.resigned else "pass" if step.outcome is None else _HOW[step.outcome]
    after = step.next_match
    result = GameResult(
        winner=_SIDES[step.winner],
        points=step.points,
        how=how,
        score=PairView(human=after.score[HUMAN], bot=after.score[BOT]),
        match_over=False,
        next_game=_token(new_long_game(after, step.rules)),
    )
    return _view(step, events, bot_move, result)


def _plies(request: GameRequest) -> int:
    """The bot's search depth: ``plies``, or a playing level's depth (long nardy plays without its noise)."""
    return level_named(request.playing_level).plies if request.playing_level is not None else request.plies


def _cube_decision(bot: Bot, game: LongGame, seat: int, plies: int) -> CubeDecision:
    """The money cube decision of the side on roll (``seat``) before its roll, by the long nardy bot."""
    owner = Owner.CENTERED if game.cube_owner is None else Owner.ME if game.cube_owner == seat else Owner.OPP
    return bot.cube_decision(game.board, CubeState(cube=1 if owner is Owner.CENTERED else 2, owner=owner), plies)


def _may_double(game: LongGame) -> bool:
    return game.may_double and game.raised_cube <= MAX_CUBE


# ---------------------------------------------------------------- views


def new_game(request: NewGameRequest) -> GameView:
    """A money game of long nardy before its opening throw, with the doubling cube if asked for."""
    if request.length:
        raise InvalidMatchError(f"length {request.length}: long nardy is played for money here (length 0)")
    rules = replace(DEFAULT_RULES, cube="doubling" if request.cube else "none")
    cube = " with the cube" if request.cube else ""
    return _view(new_long_game(MatchState(), rules), [f"New game: long nardy for money{cube} against nardy"])


def show(request: GameRequest) -> GameView:
    """The game a token describes, as the page draws it (no action)."""
    return _view(_read(request.game), [])


def roll(request: GameRequest) -> GameView:
    """The human's roll: the opening throw (one die each, the higher starts and then rolls), else two dice."""
    game = _read(request.game)
    rng = np.random.default_rng(request.seed)
    if game.phase is Phase.OPENING:
        while game.phase is Phase.OPENING:
            mine, theirs = roll_dice(rng)
            game = game.roll_opening(mine, theirs)
        who = "you play first" if game.turn == HUMAN else "nardy plays first"
        return _view(game, [f"Opening throw: you {mine}, nardy {theirs}; {who}"])
    rolled = _require(game, HUMAN, "roll", Phase.BEFORE_ROLL).roll(roll_dice(rng))
    assert rolled.dice is not None
    return _view(rolled, [f"You roll {rolled.dice[0]}{rolled.dice[1]}"])


def play(request: PlayRequest) -> GameView:
    """The human's play of its dice (checked by ``engine.long_nardy.parse_long_move``)."""
    game = _require(_read(request.game), HUMAN, f"move {request.move!r}", Phase.ROLLED)
    assert game.dice is not None
    chosen = parse_long_move(request.move, game.board, game.dice, game.rules)
    return _answer(game.move(chosen), [f"You play {format_play(chosen) or 'no move'}"])


def bot_turn(bot: Bot, request: GameRequest) -> GameView:
    """The bot's turn: it doubles (the human answers), or rolls (unless it has dice) and plays."""
    game = _require(_read(request.game), BOT, "the bot's turn", Phase.BEFORE_ROLL, Phase.ROLLED)
    plies = _plies(request)
    if game.phase is Phase.BEFORE_ROLL:
        if _may_double(game) and _cube_decision(bot, game, BOT, plies).should_double:
            return _view(game.double(), [f"nardy doubles to {game.raised_cube}"])
        game = game.roll(roll_dice(np.random.default_rng(request.seed)))
    dice = game.dice
    assert dice is not None
    chosen = bot.best_play(game.board, dice, plies).play
    notation = format_play(chosen)
    moved = f"plays {notation}" if notation else "cannot move"
    move = BotMoveView(dice=dice, move=notation, steps=step_views(chosen))
    return _answer(game.move(chosen), [f"nardy rolls {dice[0]}{dice[1]} and {moved}"], move)


def double(bot: Bot, request: GameRequest) -> GameView:
    """The human doubles before rolling; the bot takes (the cube turns, the human rolls) or passes."""
    game = _require(_read(request.game), HUMAN, "double", Phase.BEFORE_ROLL)
    if game.may_double and not _may_double(game):
        raise IllegalMoveError(f"double: the cube is on its largest value, {game.cube}")
    offered = game.double()  # IllegalActionError naming why when the human has no access to the cube
    events = [f"You double to {game.raised_cube}"]
    if _cube_decision(bot, game, HUMAN, _plies(request)).should_take:
        events.append(f"nardy takes; the cube is on {game.raised_cube}")
        return _view(offered.take(), events)
    events.append("nardy passes")
    return _answer(offered.drop(), events)


def take(request: GameRequest) -> GameView:
    """The human takes the bot's double: the cube turns to the human, the bot rolls."""
    taken = _require(_read(request.game), HUMAN, "take", Phase.DOUBLED).take()
    return _view(taken, [f"You take; the cube is on {taken.cube}"])


def pass_double(request: GameRequest) -> GameView:
    """The human passes the bot's double: the bot wins the stake before the double."""
    return _answer(_require(_read(request.game), HUMAN, "pass", Phase.DOUBLED).drop(), ["You pass"])


def resign(request: GameRequest) -> GameView:
    """The human resigns: the game ends at once, oin when a checker of the human's is off, else mars (R15)."""
    game = _require(_read(request.game), HUMAN, "resign", Phase.BEFORE_ROLL, Phase.ROLLED, Phase.DOUBLED)
    return _answer(game.resign(HUMAN), ["You resign"])


def answer_resignation(request: GameRequest) -> GameView:
    """Accept or reject a resignation: long nardy's bot never offers one, so this is always refused."""
    game = _read(request.game)
    raise IllegalMoveError(f"no resignation to answer (phase {_PHASE_NAMES[game.phase]}): nardy never offers one")
