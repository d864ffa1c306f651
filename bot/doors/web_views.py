"""The web board's views: a game against the bot as stateless steps (no web framework).

``bot.doors.web_app`` routes ``/v1/game/...`` requests to these functions. The server
keeps no game: the page holds a *game token*, ``PositionID:MatchID`` as GNU Backgammon
writes them (the Position ID in the view of the player on roll, the Match ID with the
cube, score, Crawford flag, dice, who is on roll and who must decide now), and sends it
back with every action. Each view reads the token into the engine's game state machine
(``engine.game.from_ids``: a ``Game``, or the ``GameResult`` of a finished game), applies
the action (the opening roll, a roll, a play, a double and its answer, a resignation, the
bot's turn) with ``engine.game``'s actions and the decisions of ``bot.facade.Bot``, and
answers a ``GameView`` of the next state: the new token (``ids()``) and everything the
page draws. No rule of the game is here, only who the seats are and what the page shows.

Seats: the human is player 0, the bot player 1 (GNU Backgammon's numbering in the Match
ID). ``GameView.board`` is always in the human's view (its checkers positive, its bar at
25, the bot's bar at 0); legal plays are in the human's numbering. Before a game's
opening roll the Match ID's game state is "no game" (0); a finished game's token has the
winner on roll (``engine.game.from_ids`` says what the Match ID cannot hold, such as
post-Crawford). The bot answers the human's resignation at once, so a token holds a
resignation offered only when the bot offers it (before its roll, when its own evaluation
says the game is lost: ``bot.equity.resign``), waiting for the human's accept or reject.

Bad input (an unreadable token, an action the state does not allow, an illegal move)
raises an engine error (``engine.errors.BackgammonError``) naming it.
"""

from __future__ import annotations

from typing import Literal, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from bot.equity.cube import Owner, cube_state_for
from bot.doors.bounds import MAX_MATCH_LENGTH, MAX_SEED
from bot.doors.situation import parse_position
from bot.facade import Bot
from bot.play.levels import level_named
from bot.play.match_play import BotPlayer
from engine.board import flip, pip_counts
from engine.errors import IllegalMoveError, InvalidMatchError, quote
from engine.game import Game, from_ids, start_game
from engine.game import GameResult as Finished
from engine.game import Phase as Stage
from engine.game import new_game as opening
from engine.match import MAX_CUBE, MatchState, Outcome, game_result_points, roll_dice
from engine.notation import format_play, parse_move
from engine.plays import Play, legal_plays

HUMAN, BOT = 0, 1
Side = Literal["human", "bot"]
Phase = Literal["opening", "roll", "move", "doubled", "resigned", "over"]
HowEnded = Literal["single", "gammon", "backgammon", "oin", "mars", "pass", "resign"]
Variant = Literal["backgammon", "long"]
CubeOwner = Literal["on_roll", "opponent"]  # a Position's cube owner, seen by the side on roll
# A money session's score stays below this, so that the largest win (a backgammon on the largest
# cube) still fits the Match ID's 15-bit score field.
MAX_MONEY_SCORE = (1 << 15) - 1 - 3 * MAX_CUBE
_SIDES: tuple[Side, Side] = ("human", "bot")
_OUTCOME_NAMES: dict[Outcome, HowEnded] = {
    Outcome.SINGLE: "single",
    Outcome.GAMMON: "gammon",
    Outcome.BACKGAMMON: "backgammon",
}

# ---------------------------------------------------------------- requests


class NewGameRequest(BaseModel):
    """A new match (or money session) against the bot."""

    model_config = ConfigDict(strict=True)  # JSON as the schema says: no true for 1, no "3" for 3
    length: int = Field(
        0,
        ge=0,
        le=MAX_MATCH_LENGTH,
        description=f"match length in points, at most {MAX_MATCH_LENGTH} (the bot's match equity "
        "table's reach); 0 = money game",
    )
    variant: Variant = Field("backgammon", description="backgammon, or long (long nardy: money games only)")
    cube: bool = Field(
        False, description="long nardy: play with the doubling cube (a backgammon game always has the cube)"
    )


class GameRequest(BaseModel):
    """An action on a game: the game token, and what the server may need for it."""

    model_config = ConfigDict(strict=True)
    game: str = Field(description="the game token of the last answer: PositionID:MatchID")
    seed: Optional[int] = Field(
        None, ge=0, le=MAX_SEED, description="seed of the dice rolled in this call (default: random)"
    )
    plies: int = Field(0, ge=0, le=2, description="the bot's search depth, 0, 1 or 2")
    playing_level: Optional[str] = Field(
        None,
        max_length=20,
        description="the bot's playing level instead of plies: beginner, casual, intermediate, advanced, expert "
        "or world-class (GNU Backgammon's depth and noise; the same position always gets the same play)",
    )


class PlayRequest(GameRequest):
    move: str = Field(description="the human's play in GNU Backgammon notation ('' when no move is possible)")


class ResignRequest(GameRequest):
    level: int = Field(1, ge=1, le=3, description="1 single, 2 gammon, 3 backgammon")


class BoardQuery(BaseModel):
    position: str = Field(description="Position ID, PositionID:MatchID or XGID (a '+' may arrive as a space)")


# ---------------------------------------------------------------- answers


class StepView(BaseModel):
    """One checker moved by one die, in the mover's numbering: 25 = the bar, 0 = off."""

    model_config = ConfigDict(populate_by_name=True)
    from_: int = Field(alias="from", ge=0, le=25)
    to: int = Field(ge=0, le=24)
    hit: bool


class LegalPlayView(BaseModel):
    """A legal play of the roll: its notation and its checker steps (one per die)."""

    move: str = Field(description="GNU Backgammon notation; '' when the roll cannot be played")
    steps: list[StepView]


class PairView(BaseModel):
    """A number for each side."""

    human: int
    bot: int


class BotMoveView(BaseModel):
    """The bot's play in this call, in the bot's numbering."""

    dice: tuple[int, int]
    move: str = Field(description="GNU Backgammon notation; '' when it could not move")
    steps: list[StepView]


class GameResult(BaseModel):
    """How a game ended, and the match after it."""

    winner: Side
    points: int
    how: HowEnded
    score: PairView = Field(description="the score after this game")
    match_over: bool
    next_game: Optional[str] = Field(
        description="the token of the next game (before its opening roll); null when the match is over"
    )


class ResignationView(BaseModel):
    """The bot's offer to resign, which the human accepts (winning ``points``) or rejects (the bot plays on)."""

    level: int = Field(ge=1, le=3, description="1 single, 2 gammon, 3 backgammon")
    how: HowEnded
    points: int = Field(description="what the human wins by accepting (the level times the cube; Jacoby applies)")


class GameView(BaseModel):
    """A game as the page draws it, after the action asked for."""

    variant: Variant = Field("backgammon", description="backgammon, or long (long nardy: no bar, no hits)")
    game: str = Field(description="the token to send with the next action")
    position_id: str = Field(description="the Position ID, in the view of the player on roll")
    match_id: str = Field(description="the Match ID; '' in long nardy, which has none")
    phase: Phase = Field(
        description="opening: roll for who starts; roll: roll or double; move: play the dice; "
        "doubled: take or pass; over: the game has ended"
    )
    turn: Side = Field(description="who must act now")
    on_roll: Side
    board: list[int] = Field(
        description="26 numbers in the human's view: its checkers positive, its bar 25, the bot's bar 0 (negative)"
    )
    dice: Optional[tuple[int, int]]
    may_double: bool = Field(
        description="whether the side to act may double now (the rules: cube access, not Crawford)"
    )
    cube: int = Field(description="the stake; 0 in a long nardy game without the cube")
    cube_owner: Optional[Side]
    match_length: int = Field(description="0 = money game")
    score: PairView
    crawford: bool
    post_crawford: bool
    pips: PairView
    plays: list[LegalPlayView] = Field(description="the human's legal plays of the dice (phase move, human on roll)")
    events: list[str] = Field(description="what happened in this call, in order")
    bot_move: Optional[BotMoveView] = None
    result: Optional[GameResult] = None
    resignation: Optional[ResignationView] = Field(None, description="the bot's offer to resign (phase resigned)")


class BoardView(BaseModel):
    """A position as a POSITION text gives it, for drawing: seen by the side on roll."""

    position_id: str
    board: list[int] = Field(description="26 numbers in the view of the side on roll (docs/DESIGN.md)")
    dice: Optional[tuple[int, int]]
    pips: tuple[int, int] = Field(description="(side on roll, opponent)")
    match_length: int
    score: tuple[int, int] = Field(description="(side on roll, opponent)")
    cube: int
    cube_owner: Optional[CubeOwner]
    crawford: bool
    double_offered: bool


# ---------------------------------------------------------------- the game token

_PHASES: dict[Stage, Phase] = {
    Stage.OPENING: "opening",
    Stage.BEFORE_ROLL: "roll",
    Stage.ROLLED: "move",
    Stage.DOUBLED: "doubled",
    Stage.RESIGNED: "resigned",
}


def _read(token: str) -> Game | Finished:
    """The game (or finished game) a token describes; raise an engine error naming it when it is unreadable or
    impossible."""
    text = token.strip().replace(" ", "+")
    if text.upper().startswith("XGID=") or ":" not in text:
        raise InvalidMatchError(f"game {token!r}: expected PositionID:MatchID")
    position_id, _, match_id = text.partition(":")
    step = from_ids(position_id, match_id)
    if isinstance(step, Game) and step.resignation is not None and step.resignation.player != BOT:
        raise InvalidMatchError(f"game {token!r}: nardy answers your resignation at once, no game token holds one")
    _check_reachable(step.match, f"game {quote(token, 40)}")
    return step


def _check_reachable(m: MatchState, what: str) -> None:
    """Refuse a token's match that no game against the bot reaches (the token is not signed: docs/http_limits.md).

    ``from_ids`` has checked what the IDs can say wrongly (a cube that is not a power of two up to
    ``MAX_CUBE``, a score at or past the match length, a Crawford game at the wrong score or with the
    cube turned, a double without cube access); this adds what the bot cannot play or the next game's
    token could not hold.
    """
    if m.match_length > MAX_MATCH_LENGTH:
        raise InvalidMatchError(
            f"{what}: a {m.match_length}-point match; nardy plays matches of at most "
            f"{MAX_MATCH_LENGTH} points (its match equity table's reach)"
        )
    if not m.match_length and max(m.score) > MAX_MONEY_SCORE:
        raise InvalidMatchError(
            f"{what}: money score {m.score[0]}-{m.score[1]}; at most {MAX_MONEY_SCORE} "
            "points each, so that the next win still fits the Match ID"
        )


def _token(step: Game | Finished) -> str:
    return ":".join(step.ids())


def _on_roll(step: Game | Finished) -> int:
    """The seat on roll: the human before the opening roll, the winner of a finished game."""
    if isinstance(step, Finished):
        return step.winner
    return HUMAN if step.turn is None else step.turn


def _actor(step: Game | Finished) -> int:
    """The seat that acts now: the human rolls the opening roll; the winner of a finished game."""
    actor = step.actor if isinstance(step, Game) else None
    return _on_roll(step) if actor is None else actor


def _phase(step: Game | Finished) -> Phase:
    return "over" if isinstance(step, Finished) else _PHASES[step.phase]


def _require(step: Game | Finished, seat: int, action: str, *stages: Stage) -> Game:
    """The game, if ``seat`` is to act in one of ``stages``; else raise IllegalMoveError naming ``action``."""
    if isinstance(step, Game) and step.phase in stages and _actor(step) == seat:
        return step
    raise IllegalMoveError(f"{action}: not possible now (phase {_phase(step)}, {_SIDES[_actor(step)]} to act)")


def step_views(play: Play) -> list[StepView]:
    """The checker steps of a play as the page reads them (either game: long nardy never hits)."""
    return [StepView.model_validate({"from": s.src, "to": s.dst, "hit": s.hit}) for s in play.steps]


# ---------------------------------------------------------------- answering


def _view(
    step: Game | Finished,
    events: list[str],
    bot_move: Optional[BotMoveView] = None,
    result: Optional[GameResult] = None,
) -> GameView:
    """What the page draws of ``step``: a game, or a finished game (phase over)."""
    position_id, match_id = step.ids()
    on_roll = _on_roll(step)
    board = step.position.board if on_roll == HUMAN else flip(step.position.board)
    pips = pip_counts(board)
    plays: list[LegalPlayView] = []
    dice = None
    if isinstance(step, Game):
        dice = step.dice
        if step.phase is Stage.ROLLED and on_roll == HUMAN and step.dice is not None:
            plays = [
                LegalPlayView(move=format_play(p), steps=step_views(p)) for p in legal_plays(step.board, step.dice)
            ]
    m = step.match
    offer = step.resignation if isinstance(step, Game) else None
    resignation = (
        None
        if offer is None
        else ResignationView(
            level=offer.level,
            how=_OUTCOME_NAMES[Outcome(offer.level)],
            points=game_result_points(offer.level, m.cube_value, m.jacoby),
        )
    )
    return GameView(
        variant="backgammon",
        game=f"{position_id}:{match_id}",
        position_id=position_id,
        match_id=match_id,
        phase=_phase(step),
        turn=_SIDES[_actor(step)],
        on_roll=_SIDES[on_roll],
        board=[int(x) for x in board],
        dice=dice,
        may_double=isinstance(step, Game) and step.may_double,
        cube=m.cube_value,
        cube_owner=None if m.cube_owner is None else _SIDES[m.cube_owner],
        match_length=m.match_length,
        score=PairView(human=m.score[HUMAN], bot=m.score[BOT]),
        crawford=m.crawford,
        post_crawford=m.post_crawford,
        pips=PairView(human=pips[0], bot=pips[1]),
        plays=plays,
        events=events,
        bot_move=bot_move,
        result=result,
        resignation=resignation,
    )


def _answer(step: Game | Finished, events: list[str], bot_move: Optional[BotMoveView] = None) -> GameView:
    """The view after an action: the next game, or the game over with the next game's token."""
    if isinstance(step, Game):
        return _view(step, events, bot_move)
    after = step.next_match
    name = "You win" if step.winner == HUMAN else "nardy wins"
    plural = "s" if step.points != 1 else ""
    events.append(f"{name} {step.points} point{plural}" + (" and the match" if after.is_over else ""))
    how: HowEnded = "resign" if step.resigned else "pass" if step.outcome is None else _OUTCOME_NAMES[step.outcome]
    result = GameResult(
        winner=_SIDES[step.winner],
        points=step.points,
        how=how,
        score=PairView(human=after.score[HUMAN], bot=after.score[BOT]),
        match_over=after.is_over,
        next_game=None if after.is_over else _token(opening(after)),
    )
    return _view(step, events, bot_move, result)


# ---------------------------------------------------------------- views


def new_game(request: NewGameRequest) -> GameView:
    """A new match (or money game) before its opening roll: the starting position, the human to roll."""
    kind = f"a {request.length}-point match" if request.length else "a money game"
    return _view(opening(MatchState(match_length=request.length)), [f"New game: {kind} against nardy"])


def show(request: GameRequest) -> GameView:
    """The game a token describes, as the page draws it (no action)."""
    return _view(_read(request.game), [])


def roll(request: GameRequest) -> GameView:
    """The human's roll: the opening roll of a game (each side one die; the higher starts), else two dice."""
    step = _read(request.game)
    rng = np.random.default_rng(request.seed)
    if isinstance(step, Game) and step.phase is Stage.OPENING:
        started = start_game(step.match, rng)
        first, dice = _on_roll(started), started.dice
        assert dice is not None
        mine, theirs = (dice[0], dice[1]) if first == HUMAN else (dice[1], dice[0])
        who = "you play first" if first == HUMAN else "nardy plays first"
        return _view(started, [f"Opening roll: you {mine}, nardy {theirs}; {who}"])
    rolled = _require(step, HUMAN, "roll", Stage.BEFORE_ROLL).roll(roll_dice(rng))
    assert rolled.dice is not None
    return _view(rolled, [f"You roll {rolled.dice[0]}{rolled.dice[1]}"])


def play(request: PlayRequest) -> GameView:
    """The human's play of its dice (checked by ``engine.notation.parse_move``)."""
    game = _require(_read(request.game), HUMAN, f"move {request.move!r}", Stage.ROLLED)
    assert game.dice is not None
    chosen = parse_move(request.move, game.board, game.dice)
    return _answer(game.move(chosen), [f"You play {format_play(chosen) or 'no move'}"])


def searches(request: GameRequest) -> bool:
    """Whether the bot searches deeper than 0-ply for ``request`` (the server queues such work)."""
    level = level_named(request.playing_level) if request.playing_level is not None else None
    return request.plies > 0 or (level is not None and level.plies > 0)


def _player(bot: Bot, request: GameRequest) -> BotPlayer:
    """The bot as the request asks it to play: at ``plies``, or at its ``playing_level``."""
    level = level_named(request.playing_level) if request.playing_level is not None else None
    return BotPlayer(bot, request.plies, level=level)


def bot_turn(bot: Bot, request: GameRequest) -> GameView:
    """The bot's turn: resign or double (then the human answers), or roll (unless it has dice) and play."""
    game = _require(_read(request.game), BOT, "the bot's turn", Stage.BEFORE_ROLL, Stage.ROLLED)
    if game.phase is Stage.BEFORE_ROLL:
        # As GNU Backgammon, the cheapest resignation the human should accept, offered only when the bot's
        # evaluation says playing on is worth hardly more (``bot.equity.resign.offer_resignation``).
        state = cube_state_for(game.match, BOT)
        level = bot.resign_decision(game.board, state, plies=request.plies).offer.level
        if level is not None:
            return _view(game.resign(BOT, level), [f"nardy offers to resign a {_OUTCOME_NAMES[level]} game"])
    return _bot_plays(bot, request, game, [])


def _bot_plays(bot: Bot, request: GameRequest, game: Game, events: list[str]) -> GameView:
    """The bot, on roll in ``game``, doubles (then the human answers), or rolls (unless it has dice) and plays."""
    player = _player(bot, request)
    state = cube_state_for(game.match, BOT)
    if game.phase is Stage.BEFORE_ROLL:
        if game.may_double and state.can_double and player.should_double(game.board, state):
            events.append(f"nardy doubles to {2 * game.match.cube_value}")
            return _view(game.double(), events)
        game = game.roll(roll_dice(np.random.default_rng(request.seed)))
    dice = game.dice
    assert dice is not None
    chosen = player.choose_play(game.board, dice, state)
    notation = format_play(chosen)
    events.append(
        f"nardy rolls {dice[0]}{dice[1]} and plays {notation}"
        if notation
        else f"nardy rolls {dice[0]}{dice[1]} and cannot move"
    )
    move = BotMoveView(dice=dice, move=notation, steps=step_views(chosen))
    return _answer(game.move(chosen), events, move)


def double(bot: Bot, request: GameRequest) -> GameView:
    """The human doubles before rolling; the bot takes (the cube turns, the human rolls) or passes."""
    player = _player(bot, request)
    game = _require(_read(request.game), HUMAN, "double", Stage.BEFORE_ROLL)
    if not game.may_double:
        why = (
            "the Crawford game is played without the cube"
            if game.match.crawford
            else f"the cube is on its largest value, {MAX_CUBE}"
            if game.match.cube_value >= MAX_CUBE
            else "nardy owns the cube"
        )
        raise IllegalMoveError(f"double: not allowed now ({why})")
    offered = game.double()
    cube = game.match.cube_value
    events = [f"You double to {2 * cube}"]
    if player.should_take(game.board, cube_state_for(game.match, HUMAN)):
        events.append(f"nardy takes; the cube is on {2 * cube}")
        return _view(offered.take(), events)
    events.append("nardy passes")
    return _answer(offered.drop(), events)


def take(request: GameRequest) -> GameView:
    """The human takes the bot's double: the cube turns to the human, the bot rolls."""
    taken = _require(_read(request.game), HUMAN, "take", Stage.DOUBLED).take()
    return _view(taken, [f"You take; the cube is on {taken.match.cube_value}"])


def pass_double(request: GameRequest) -> GameView:
    """The human passes the bot's double: the bot wins the cube's value before the double."""
    return _answer(_require(_read(request.game), HUMAN, "pass", Stage.DOUBLED).drop(), ["You pass"])


def resign(bot: Bot, request: ResignRequest) -> GameView:
    """The human resigns a single game, a gammon or a backgammon; the bot accepts or plays on."""
    game = _require(_read(request.game), HUMAN, "resign", Stage.BEFORE_ROLL, Stage.ROLLED, Stage.DOUBLED)
    offer = game.resign(HUMAN, request.level)
    on_roll = _on_roll(game)
    answers = bot.resign_decision(game.board, cube_state_for(game.match, on_roll), request.level, request.plies)
    answer = answers.opponent_accepts if on_roll == HUMAN else answers.side_on_roll_accepts
    events = [f"You resign a {_OUTCOME_NAMES[Outcome(request.level)]} game"]
    if not answer.accept:
        events.append("nardy declines and plays on")
        return _view(offer.reject(), events)
    events.append("nardy accepts")
    return _answer(offer.accept(), events)


def accept_resignation(request: GameRequest) -> GameView:
    """The human accepts the bot's resignation: the game ends, the human wins its level times the cube."""
    offer = _require(_read(request.game), HUMAN, "accept", Stage.RESIGNED)
    return _answer(offer.accept(), ["You accept nardy's resignation"])


def reject_resignation(bot: Bot, request: GameRequest) -> GameView:
    """The human rejects the bot's resignation: the bot plays on at once (it does not offer again this turn)."""
    offer = _require(_read(request.game), HUMAN, "reject", Stage.RESIGNED)
    return _bot_plays(bot, request, offer.reject(), ["You reject nardy's resignation; nardy plays on"])


def board(query: BoardQuery) -> BoardView:
    """The board and match of a Position ID, ``PositionID:MatchID`` or XGID, seen by the side on roll."""
    situation = parse_position(query.position.replace(" ", "+"))
    s = situation.state
    owners: dict[Owner, CubeOwner] = {Owner.ME: "on_roll", Owner.OPP: "opponent"}
    owner = owners.get(s.owner)
    return BoardView(
        position_id=situation.position_id,
        board=[int(x) for x in situation.board],
        dice=situation.dice,
        pips=pip_counts(situation.board),
        match_length=s.match_length,
        score=s.score,
        cube=s.cube,
        cube_owner=owner,
        crawford=s.crawford,
        double_offered=situation.double_offered,
    )
