"""The web board's views: a game against the bot as stateless steps (no web framework).

``bot.doors.web_app`` routes ``/v1/game/...`` requests to these functions. The server
keeps no game: the page holds a *game token*, ``PositionID:MatchID`` as GNU Backgammon
writes them (the Position ID in the view of the player on roll, the Match ID with the
cube, score, Crawford flag, dice, who is on roll and who must decide now), and sends it
back with every action. Each view reads the token with the engine's parsers, applies one
action (the opening roll, a roll, a play, a double and its answer, a resignation, the
bot's turn) with the rules of ``engine.match`` and the decisions of ``bot.facade.Bot``,
and answers a ``GameView``: the new token and everything the page draws.

Seats: the human is player 0, the bot player 1 (GNU Backgammon's numbering in the Match
ID). ``GameView.board`` is always in the human's view (its checkers positive, its bar at
25, the bot's bar at 0); legal plays are in the human's numbering. Before a game's
opening roll the Match ID's game state is "no game" (0). The Match ID cannot say whether
the Crawford game has been played; a side at match length - 1 outside the Crawford game
means it has (post-Crawford).

Bad input (an unreadable token, an action the state does not allow, an illegal move)
raises an engine error (``engine.errors.BackgammonError``) naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from bot.cube import Owner, cube_state_for
from bot.doors.positions import parse_position
from bot.facade import Bot, check_game_on
from engine.board import CHECKERS, START, borne_off, flip, pip_counts
from engine.errors import IllegalMoveError, InvalidMatchError
from engine.match import MatchState, Outcome, after_game, game_outcome, game_result_points, may_double, opening_roll
from engine.match_id import GameState, MatchId, decode_match_id, encode_match_id
from engine.notation import format_play, parse_move
from engine.plays import legal_plays
from engine.position_id import encode_position_id

HUMAN, BOT = 0, 1
Side = Literal["human", "bot"]
Phase = Literal["opening", "roll", "move", "doubled", "over"]
HowEnded = Literal["single", "gammon", "backgammon", "pass", "resign"]
CubeOwner = Literal["on_roll", "opponent"]  # a Position's cube owner, seen by the side on roll
MAX_MATCH_LENGTH = 64
_SIDES: tuple[Side, Side] = ("human", "bot")
_OUTCOME_NAMES: dict[Outcome, HowEnded] = {Outcome.SINGLE: "single", Outcome.GAMMON: "gammon", Outcome.BACKGAMMON: "backgammon"}

# ---------------------------------------------------------------- requests


class NewGameRequest(BaseModel):
    """A new match (or money session) against the bot."""

    model_config = ConfigDict(strict=True)  # JSON as the schema says: no true for 1, no "3" for 3
    length: int = Field(0, ge=0, le=MAX_MATCH_LENGTH, description="match length in points; 0 = money game")


class GameRequest(BaseModel):
    """An action on a game: the game token, and what the server may need for it."""

    model_config = ConfigDict(strict=True)
    game: str = Field(description="the game token of the last answer: PositionID:MatchID")
    seed: Optional[int] = Field(None, ge=0, le=2**63 - 1, description="seed of the dice rolled in this call (default: random)")
    plies: int = Field(0, ge=0, le=2, description="the bot's search depth, 0, 1 or 2")


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
    next_game: Optional[str] = Field(description="the token of the next game (before its opening roll); null when the match is over")


class GameView(BaseModel):
    """A game as the page draws it, after the action asked for."""

    game: str = Field(description="the token to send with the next action")
    position_id: str = Field(description="the Position ID, in the view of the player on roll")
    match_id: str
    phase: Phase = Field(description="opening: roll for who starts; roll: roll or double; move: play the dice; "
                                     "doubled: take or pass; over: the game has ended")
    turn: Side = Field(description="who must act now")
    on_roll: Side
    board: list[int] = Field(description="26 numbers in the human's view: its checkers positive, its bar 25, "
                                         "the bot's bar 0 (negative)")
    dice: Optional[tuple[int, int]]
    may_double: bool = Field(description="whether the side to act may double now (the rules: cube access, not Crawford)")
    cube: int
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


@dataclass(frozen=True)
class _Game:
    """A game token read: the board in the view of ``on_roll``; ``turn`` decides now."""

    board: np.ndarray
    match: MatchState
    on_roll: int
    turn: int
    dice: Optional[tuple[int, int]]
    state: GameState
    double_offered: bool

    @property
    def phase(self) -> Phase:
        if self.state is GameState.NONE:
            return "opening"
        if self.state is not GameState.PLAYING:
            return "over"
        if self.double_offered:
            return "doubled"
        return "move" if self.dice else "roll"

    @property
    def human_board(self) -> np.ndarray:
        return self.board if self.on_roll == HUMAN else flip(self.board)

    def token(self) -> str:
        m = self.match
        match_id = encode_match_id(
            MatchId(
                cube_value=m.cube_value,
                cube_owner=m.cube_owner,
                player_on_roll=self.on_roll,
                crawford=m.crawford,
                game_state=self.state,
                turn=self.turn,
                double_offered=self.double_offered,
                dice=self.dice,
                match_length=m.match_length,
                score=m.score,
                jacoby=m.jacoby,
            )
        )
        return f"{encode_position_id(self.board)}:{match_id}"


def _post_crawford(match: MatchState) -> bool:
    """After the Crawford game: a side at match length - 1 outside it (a 1-point match has none)."""
    return match.match_length > 1 and not match.crawford and max(match.score) == match.match_length - 1


def _read_game(token: str) -> _Game:
    """The game a token describes; raise an engine error naming it when it is unreadable or inconsistent."""
    text = token.strip().replace(" ", "+") if isinstance(token, str) else token
    what = f"game {token!r}"
    if not isinstance(text, str) or text.upper().startswith("XGID=") or ":" not in text:
        raise InvalidMatchError(f"{what}: expected PositionID:MatchID")
    setup = parse_position(text)
    m = decode_match_id(text.partition(":")[2])
    match = MatchState(
        match_length=m.match_length,
        score=m.score,
        cube_value=m.cube_value,
        cube_owner=m.cube_owner,
        crawford=m.crawford,
        jacoby=m.jacoby and not m.match_length,
    )
    match = replace(match, post_crawford=_post_crawford(match))
    if match.is_over and m.game_state in (GameState.NONE, GameState.PLAYING):
        raise InvalidMatchError(f"{what}: the match is over (score {match.score} in a {match.match_length}-point match)")
    game = _Game(setup.board, match, m.player_on_roll, m.turn, m.dice, m.game_state, m.double_offered)
    if game.state is GameState.PLAYING:
        check_game_on(game.board)
        if game.double_offered and (game.turn == game.on_roll or game.dice):
            raise InvalidMatchError(f"{what}: a double is answered by the opponent of the doubler, before any roll")
        if not game.double_offered and game.turn != game.on_roll:
            raise InvalidMatchError(f"{what}: the player to decide is not the player on roll")
        # The cube state must make sense for the side on roll (raises InvalidMatchError).
        cube_state_for(match, game.on_roll)
    return game


def _require(game: _Game, phase: Phase, turn: int, action: str) -> None:
    if game.phase != phase or game.turn != turn:
        who = _SIDES[game.turn]
        raise IllegalMoveError(f"{action}: not possible now (phase {game.phase}, {who} to act)")


def _rng(seed: Optional[int]) -> np.random.Generator:
    return np.random.default_rng(seed)


def _roll(rng: np.random.Generator) -> tuple[int, int]:
    d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
    return d1, d2


def _steps(play) -> list[StepView]:
    return [StepView.model_validate({"from": s.src, "to": s.dst, "hit": s.hit}) for s in play.steps]


# ---------------------------------------------------------------- answering


def _view(game: _Game, events: list[str], bot_move: Optional[BotMoveView] = None,
          result: Optional[GameResult] = None) -> GameView:
    m = game.match
    token = game.token()
    board = game.human_board
    pips = pip_counts(board)
    plays = []
    if game.phase == "move" and game.on_roll == HUMAN:
        plays = [LegalPlayView(move=format_play(p), steps=_steps(p)) for p in legal_plays(game.board, game.dice)]
    may = game.phase == "roll" and may_double(m, game.turn)
    return GameView(
        game=token,
        position_id=token.partition(":")[0],
        match_id=token.partition(":")[2],
        phase=game.phase,
        turn=_SIDES[game.turn],
        on_roll=_SIDES[game.on_roll],
        board=[int(x) for x in board],
        dice=game.dice,
        may_double=may,
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
    )


def _finish(game: _Game, winner: int, points: int, how: HowEnded, state: GameState, events: list[str],
            bot_move: Optional[BotMoveView] = None) -> GameView:
    """The game over: ``winner`` scores ``points``; the answer carries the next game's token."""
    after = after_game(game.match, winner, points)
    next_game = None
    if not after.is_over:
        next_game = replace(game, board=START.copy(), match=after, on_roll=HUMAN, turn=HUMAN, dice=None,
                            state=GameState.NONE, double_offered=False).token()
    name = "You win" if winner == HUMAN else "nardy wins"
    events.append(f"{name} {points} point{'s' if points != 1 else ''}" + (" and the match" if after.is_over else ""))
    result = GameResult(winner=_SIDES[winner], points=points, how=how,
                        score=PairView(human=after.score[HUMAN], bot=after.score[BOT]),
                        match_over=after.is_over, next_game=next_game)
    final = replace(game, state=state, double_offered=False, turn=game.on_roll)
    return _view(final, events, bot_move, result)


def _after_play(game: _Game, play, events: list[str], bot_move: Optional[BotMoveView] = None) -> GameView:
    """The game after the player on roll played ``play``: the other side on roll, or the game over."""
    after = play.afterstate
    if borne_off(after)[0] == CHECKERS:
        outcome = game_outcome(after)
        points = game_result_points(outcome, game.match.cube_value, game.match.jacoby)
        over = replace(game, board=after, dice=None)
        return _finish(over, game.on_roll, points, _OUTCOME_NAMES[outcome], GameState.OVER, events, bot_move)
    other = 1 - game.on_roll
    return _view(replace(game, board=flip(after), on_roll=other, turn=other, dice=None), events, bot_move)


# ---------------------------------------------------------------- views


def new_game(request: NewGameRequest) -> GameView:
    """A new match (or money game) before its opening roll: the starting position, the human to roll."""
    game = _Game(START.copy(), MatchState(match_length=request.length), HUMAN, HUMAN, None, GameState.NONE, False)
    kind = f"a {request.length}-point match" if request.length else "a money game"
    return _view(game, [f"New game: {kind} against nardy"])


def show(request: GameRequest) -> GameView:
    """The game a token describes, as the page draws it (no action)."""
    return _view(_read_game(request.game), [])


def roll(request: GameRequest) -> GameView:
    """The human's roll: the opening roll of a game (each side one die; the higher starts), else two dice."""
    game = _read_game(request.game)
    rng = _rng(request.seed)
    if game.phase == "opening":
        first, dice = opening_roll(rng)
        board = game.board if first == game.on_roll else flip(game.board)
        mine, theirs = (dice[0], dice[1]) if first == HUMAN else (dice[1], dice[0])
        who = "you play first" if first == HUMAN else "nardy plays first"
        started = replace(game, board=board, on_roll=first, turn=first, dice=dice, state=GameState.PLAYING)
        return _view(started, [f"Opening roll: you {mine}, nardy {theirs}; {who}"])
    _require(game, "roll", HUMAN, "roll")
    dice = _roll(rng)
    return _view(replace(game, dice=dice), [f"You roll {dice[0]}{dice[1]}"])


def play(request: PlayRequest) -> GameView:
    """The human's play of its dice (checked by ``engine.notation.parse_move``)."""
    game = _read_game(request.game)
    _require(game, "move", HUMAN, f"move {request.move!r}")
    chosen = parse_move(request.move, game.board, game.dice)
    text = format_play(chosen) or "no move"
    return _after_play(game, chosen, [f"You play {text}"])


def bot_turn(bot: Bot, request: GameRequest) -> GameView:
    """The bot's turn: double (then the human answers), or roll (unless it has dice) and play."""
    game = _read_game(request.game)
    if game.turn != BOT or game.phase not in ("roll", "move"):
        raise IllegalMoveError(f"the bot's turn: not now (phase {game.phase}, {_SIDES[game.turn]} to act)")
    state = cube_state_for(game.match, BOT)
    events: list[str] = []
    dice = game.dice
    if dice is None:
        if may_double(game.match, BOT) and state.can_double and bot.should_double(game.board, state, request.plies):
            events.append(f"nardy doubles to {2 * game.match.cube_value}")
            return _view(replace(game, turn=HUMAN, double_offered=True), events)
        dice = _roll(_rng(request.seed))
    best = bot.best_play(game.board, dice, plies=request.plies, state=state)
    events.append(f"nardy rolls {dice[0]}{dice[1]} and plays {best.notation}" if best.notation
                  else f"nardy rolls {dice[0]}{dice[1]} and cannot move")
    move = BotMoveView(dice=dice, move=best.notation, steps=_steps(best.play))
    return _after_play(replace(game, dice=dice), best.play, events, move)


def double(bot: Bot, request: GameRequest) -> GameView:
    """The human doubles before rolling; the bot takes (the cube turns, the human rolls) or passes."""
    game = _read_game(request.game)
    _require(game, "roll", HUMAN, "double")
    if not may_double(game.match, HUMAN):
        why = "the Crawford game is played without the cube" if game.match.crawford else "nardy owns the cube"
        raise IllegalMoveError(f"double: not allowed now ({why})")
    cube = game.match.cube_value
    events = [f"You double to {2 * cube}"]
    if bot.should_take(game.board, cube_state_for(game.match, HUMAN), request.plies):
        events.append(f"nardy takes; the cube is on {2 * cube}")
        match = replace(game.match, cube_value=2 * cube, cube_owner=BOT)
        return _view(replace(game, match=match), events)
    events.append("nardy passes")
    return _finish(game, HUMAN, cube, "pass", GameState.DROPPED, events)


def take(request: GameRequest) -> GameView:
    """The human takes the bot's double: the cube turns to the human, the bot rolls."""
    game = _read_game(request.game)
    _require(game, "doubled", HUMAN, "take")
    match = replace(game.match, cube_value=2 * game.match.cube_value, cube_owner=HUMAN)
    return _view(replace(game, match=match, turn=BOT, double_offered=False),
                 [f"You take; the cube is on {match.cube_value}"])


def pass_double(request: GameRequest) -> GameView:
    """The human passes the bot's double: the bot wins the cube's value before the double."""
    game = _read_game(request.game)
    _require(game, "doubled", HUMAN, "pass")
    return _finish(game, BOT, game.match.cube_value, "pass", GameState.DROPPED, ["You pass"])


def resign(bot: Bot, request: ResignRequest) -> GameView:
    """The human resigns a single game, a gammon or a backgammon; the bot accepts or plays on."""
    game = _read_game(request.game)
    if game.turn != HUMAN or game.phase not in ("roll", "move", "doubled"):
        raise IllegalMoveError(f"resign: not possible now (phase {game.phase}, {_SIDES[game.turn]} to act)")
    level = Outcome(request.level)
    state = cube_state_for(game.match, game.on_roll)
    answers = bot.resign_decision(game.board, state, int(level), request.plies)
    answer = answers.opponent_accepts if game.on_roll == HUMAN else answers.side_on_roll_accepts
    events = [f"You resign a {_OUTCOME_NAMES[level]} game"]
    if not answer.accept:
        events.append("nardy declines and plays on")
        return _view(game, events)
    events.append("nardy accepts")
    points = game_result_points(level, game.match.cube_value, game.match.jacoby)
    return _finish(game, BOT, points, "resign", GameState.RESIGNED, events)


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
