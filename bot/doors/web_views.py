"""The web board's views: a game against the bot as stateless steps (no web framework), in either game.

``bot.doors.web_app`` routes ``/v1/game/...`` requests to these functions. The server keeps no game: the
page holds a *game token* and sends it back with every action. Each game writes its token with its codec
(``bot.doors.codecs``): backgammon ``PositionID:MatchID`` as GNU Backgammon writes them (the Position ID
in the view of the player on roll, the Match ID with the cube, score, Crawford flag, dice, who is on roll
and who must decide now), long nardy ``long:POSITIONID:...``. Each view reads the
token into its game's state machine (a game, or the result of a finished game), applies the action (the
opening roll, a roll, a play, a double and its answer, a resignation, the bot's turn) with the engine's
actions and the decisions of ``bot.facade.Bot``, and answers a ``GameView`` of the next state: the new
token and everything the page draws. No rule of the game is here, only who the seats are and what the
page shows.

Seats: the human is player 0, the bot player 1 (GNU Backgammon's numbering in the Match ID).
``GameView.board`` is always in the human's view (its checkers positive, its bar at 25, the bot's bar
at 0); legal plays are in the human's numbering. A finished game's token has the winner on roll
(backgammon) or is the next game's (long nardy). The bot answers the human's resignation at once, so a
token holds a resignation offered only when the bot offers it (before its roll, when its own evaluation
says the game is lost: ``bot.equity.resign``), waiting for the human's accept or reject. In long nardy a
resignation ends the game at once: oin, or mars while the resigning side has borne off no checker.

Bad input (an unreadable token, an action the state does not allow, an illegal move)
raises an engine error (``engine.errors.BackgammonError``) naming it.
"""

from __future__ import annotations

from typing import Literal, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from bot.doors.bounds import MAX_MATCH_LENGTH, MAX_SEED
from bot.doors.codecs import MAX_MONEY_SCORE, ApiName, GameCodec, Step, codec_for, codec_of_token
from bot.equity.cube import Owner
from bot.equity.met import met_for
from bot.facade import Bot
from bot.play.levels import level_named
from bot.play.match_play import BotPlayer
from engine.errors import IllegalMoveError, InvalidMatchError
from engine.game import Phase as Stage
from engine.match import MAX_CUBE, MatchState, game_result_points, roll_dice
from engine.plays import Play
from engine.variant import Finished

HUMAN, BOT = 0, 1
Side = Literal["human", "bot"]
Phase = Literal["opening", "roll", "move", "doubled", "resigned", "over"]
HowEnded = Literal["single", "gammon", "backgammon", "oin", "mars", "pass", "resign"]
Variant = ApiName
CubeOwner = Literal["on_roll", "opponent"]  # a Position's cube owner, seen by the side on roll
_SIDES: tuple[Side, Side] = ("human", "bot")
__all__ = ["MAX_MONEY_SCORE"]  # a money session's bound, kept by both games' tokens (bot.doors.codecs)

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
    variant: Variant = Field("backgammon", description="backgammon, or long (long nardy)")
    cube: bool = Field(
        False,
        description="long nardy: money games with the doubling cube (a backgammon game and every match always "
        "have the cube)",
    )


class GameRequest(BaseModel):
    """An action on a game: the game token, and what the server may need for it."""

    model_config = ConfigDict(strict=True)
    game: str = Field(description="the game token of the last answer: PositionID:MatchID, or long nardy's long:...")
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
    position: str = Field(
        description="Position ID, PositionID:MatchID or XGID; with variant=long a long nardy Position ID, "
        "optionally :MatchID (a '+' may arrive as a space)"
    )
    variant: Variant = Field("backgammon", description="backgammon, or long (long nardy)")


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
    match_id: str = Field(
        description="the Match ID; long nardy's (backgammon's encoding of its cube, score, turn and dice) in a "
        "match only: '' in money play and once its game is over"
    )
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


def _read(token: str) -> tuple[GameCodec, Step]:
    """The codec of a token's game and the game (or finished game) it describes; an engine error naming what is
    wrong when it is unreadable or impossible."""
    codec = codec_of_token(token)
    return codec, codec.read_token(token)


def _on_roll(step: Step) -> int:
    """The seat on roll: the human before the opening roll, the winner of a finished game (the human: a draw)."""
    if isinstance(step, Finished):
        return HUMAN if step.winner is None else step.winner
    return HUMAN if step.turn is None else step.turn


def _actor(step: Step) -> int:
    """The seat that acts now: the human rolls the opening roll; the winner of a finished game."""
    actor = None if isinstance(step, Finished) else step.actor
    return _on_roll(step) if actor is None else actor


def _phase(step: Step) -> Phase:
    return "over" if isinstance(step, Finished) else _PHASES[step.phase]


def _require(step: Step, seat: int, action: str, *stages: Stage) -> Step:
    """The game, if ``seat`` is to act in one of ``stages``; else raise IllegalMoveError naming ``action``."""
    if not isinstance(step, Finished) and step.phase in stages and _actor(step) == seat:
        return step
    raise IllegalMoveError(f"{action}: not possible now (phase {_phase(step)}, {_SIDES[_actor(step)]} to act)")


def step_views(play: Play) -> list[StepView]:
    """The checker steps of a play as the page reads them (either game: long nardy never hits)."""
    return [StepView.model_validate({"from": s.src, "to": s.dst, "hit": s.hit}) for s in play.steps]


# ---------------------------------------------------------------- answering


def _view(
    codec: GameCodec,
    step: Step,
    events: list[str],
    bot_move: Optional[BotMoveView] = None,
    result: Optional[GameResult] = None,
) -> GameView:
    """What the page draws of ``step``: a game, or a finished game (phase over)."""
    game = codec.variant
    on_roll = _on_roll(step)
    board = step.position.board if on_roll == HUMAN else game.flip(step.position.board)
    pips = game.pip_counts(board)
    plays: list[LegalPlayView] = []
    dice = None
    if not isinstance(step, Finished):
        dice = step.dice
        if step.phase is Stage.ROLLED and on_roll == HUMAN and step.dice is not None:
            plays = [
                LegalPlayView(move=game.format_play(p), steps=step_views(p))
                for p in game.legal_plays(step.board, step.dice)
            ]
    m = step.match
    offer = getattr(step, "resignation", None)
    resignation = (
        None
        if offer is None
        else ResignationView(
            level=offer.level,
            how=game.outcome_name(offer.level),  # type: ignore[arg-type]
            points=game_result_points(offer.level, m.cube_value, m.jacoby),
        )
    )
    cube, owner = codec.cube(step)
    score = step.next_match.score if isinstance(step, Finished) else m.score  # a finished game's: after it
    return GameView(
        variant=codec.api_name,
        game=codec.token(step),
        position_id=codec.position_id(step.position.board),
        match_id=codec.match_id(step),
        phase=_phase(step),
        turn=_SIDES[_actor(step)],
        on_roll=_SIDES[on_roll],
        board=[int(x) for x in board],
        dice=dice,
        may_double=not isinstance(step, Finished) and _may_double(codec, step),
        cube=cube,
        cube_owner=None if owner is None else _SIDES[owner],
        match_length=m.match_length,
        score=PairView(human=score[HUMAN], bot=score[BOT]),
        crawford=m.crawford,
        post_crawford=m.post_crawford,
        pips=PairView(human=pips[0], bot=pips[1]),
        plays=plays,
        events=events,
        bot_move=bot_move,
        result=result,
        resignation=resignation,
    )


def _answer(codec: GameCodec, step: Step, events: list[str], bot_move: Optional[BotMoveView] = None) -> GameView:
    """The view after an action: the next game, or the game over with the next game's token."""
    if not isinstance(step, Finished):
        return _view(codec, step, events, bot_move)
    assert step.winner is not None, "no last-roll draws under the web board's rules"
    after = step.next_match
    name = "You win" if step.winner == HUMAN else "nardy wins"
    plural = "s" if step.points != 1 else ""
    events.append(f"{name} {step.points} point{plural}" + (" and the match" if after.is_over else ""))
    how = "resign" if step.resigned else "pass" if step.outcome is None else codec.variant.outcome_name(step.outcome)
    with_cube = codec.cube(step)[0] > 0
    result = GameResult(
        winner=_SIDES[step.winner],
        points=step.points,
        how=how,  # type: ignore[arg-type]
        score=PairView(human=after.score[HUMAN], bot=after.score[BOT]),
        match_over=after.is_over,
        next_game=None if after.is_over else codec.token(codec.new_game(after, with_cube)),
    )
    return _view(codec, step, events, bot_move, result)


def _may_double(codec: GameCodec, game: Step) -> bool:
    """Whether the side on roll may double now, the cube not past its largest value."""
    return bool(game.may_double) and 2 * codec.cube(game)[0] <= MAX_CUBE


# ---------------------------------------------------------------- views


def new_game(request: NewGameRequest) -> GameView:
    """A new match (or money game) before its opening roll: the starting position, the human to roll."""
    codec = codec_for(request.variant)
    longest = met_for(codec.variant).size
    if request.length > longest:
        raise InvalidMatchError(
            f"length {request.length}: {codec.variant.title} matches are of at most {longest} points here "
            "(the match equity table's reach)"
        )
    kind = f"a {request.length}-point match" if request.length else "a money game"
    game = codec.new_game(MatchState(match_length=request.length), request.cube)
    return _view(codec, game, [f"New game: {kind}{codec.game_words} against nardy"])


def show(request: GameRequest) -> GameView:
    """The game a token describes, as the page draws it (no action)."""
    return _view(*_read(request.game), [])


def roll(request: GameRequest) -> GameView:
    """The human's roll: the opening roll of a game (each side one die; the higher starts), else two dice."""
    codec, step = _read(request.game)
    rng = np.random.default_rng(request.seed)
    if not isinstance(step, Finished) and step.phase is Stage.OPENING:
        while step.phase is Stage.OPENING:
            mine, theirs = roll_dice(rng)
            step = step.roll_opening(mine, theirs)
        who = "you play first" if step.turn == HUMAN else "nardy plays first"
        return _view(codec, step, [f"Opening roll: you {mine}, nardy {theirs}; {who}"])
    rolled = _require(step, HUMAN, "roll", Stage.BEFORE_ROLL).roll(roll_dice(rng))
    return _view(codec, rolled, [f"You roll {rolled.dice[0]}{rolled.dice[1]}"])


def play(request: PlayRequest) -> GameView:
    """The human's play of its dice (checked by the game's ``parse_play``)."""
    codec, step = _read(request.game)
    game = _require(step, HUMAN, f"move {request.move!r}", Stage.ROLLED)
    chosen = codec.variant.parse_play(request.move, game.board, game.dice)
    return _answer(codec, game.move(chosen), [f"You play {codec.variant.format_play(chosen) or 'no move'}"])


def searches(request: GameRequest) -> bool:
    """Whether the bot searches deeper than 0-ply for ``request`` (the server queues such work)."""
    level = level_named(request.playing_level) if request.playing_level is not None else None
    return request.plies > 0 or (level is not None and level.plies > 0)


def _player(bot: Bot, request: GameRequest) -> BotPlayer:
    """The bot as the request asks it to play: at ``plies``, or at its ``playing_level``."""
    level = level_named(request.playing_level) if request.playing_level is not None else None
    return BotPlayer(bot, request.plies, level=level)


def bot_turn(bot: Bot, request: GameRequest) -> GameView:
    """The bot's turn: resign (offered, or in long nardy at once) or double (then the human answers), or roll
    (unless it has dice) and play."""
    codec, step = _read(request.game)
    game = _require(step, BOT, "the bot's turn", Stage.BEFORE_ROLL, Stage.ROLLED)
    if game.phase is Stage.BEFORE_ROLL:
        # As GNU Backgammon, the cheapest resignation the human should accept, offered only when the bot's
        # evaluation says playing on is worth hardly more (``bot.equity.resign.offer_resignation``).
        level = bot.resign_decision(game.board, codec.cube_state(game, BOT), plies=request.plies).offer.level
        fixed = codec.resign_level(game, BOT)
        if level is not None and fixed is None:
            offered = codec.resign(game, BOT, level)
            return _view(codec, offered, [f"nardy offers to resign {codec.level_words[level - 1]}"])
        if level is not None and fixed is not None and fixed <= level:
            return _answer(codec, codec.resign(game, BOT, fixed), [f"nardy resigns {codec.level_words[fixed - 1]}"])
    return _bot_plays(bot, request, codec, game, [])


def _bot_plays(bot: Bot, request: GameRequest, codec: GameCodec, game: Step, events: list[str]) -> GameView:
    """The bot, on roll in ``game``, doubles (then the human answers), or rolls (unless it has dice) and plays."""
    player = _player(bot, request)
    state = codec.cube_state(game, BOT)
    if game.phase is Stage.BEFORE_ROLL:
        if _may_double(codec, game) and player.should_double(game.board, state):
            events.append(f"nardy doubles to {2 * codec.cube(game)[0]}")
            return _view(codec, game.double(), events)
        game = game.roll(roll_dice(np.random.default_rng(request.seed)))
    dice = game.dice
    chosen = player.choose_play(game.board, dice, state)
    notation = codec.variant.format_play(chosen)
    events.append(
        f"nardy rolls {dice[0]}{dice[1]} and plays {notation}"
        if notation
        else f"nardy rolls {dice[0]}{dice[1]} and cannot move"
    )
    move = BotMoveView(dice=dice, move=notation, steps=step_views(chosen))
    return _answer(codec, game.move(chosen), events, move)


def double(bot: Bot, request: GameRequest) -> GameView:
    """The human doubles before rolling; the bot takes (the cube turns, the human rolls) or passes."""
    player = _player(bot, request)
    codec, step = _read(request.game)
    game = _require(step, HUMAN, "double", Stage.BEFORE_ROLL)
    cube, owner = codec.cube(game)
    if not _may_double(codec, game):
        why = (
            "the Crawford game is played without the cube"
            if game.match.crawford
            else "this game is played without the cube"
            if not cube
            else f"the cube is on its largest value, {cube}"
            if 2 * cube > MAX_CUBE
            else "nardy owns the cube"
        )
        raise IllegalMoveError(f"double: not allowed now ({why})")
    offered = game.double()
    events = [f"You double to {2 * cube}"]
    if player.should_take(game.board, codec.cube_state(game, HUMAN)):
        events.append(f"nardy takes; the cube is on {2 * cube}")
        return _view(codec, offered.take(), events)
    events.append("nardy passes")
    return _answer(codec, offered.drop(), events)


def take(request: GameRequest) -> GameView:
    """The human takes the bot's double: the cube turns to the human, the bot rolls."""
    codec, step = _read(request.game)
    taken = _require(step, HUMAN, "take", Stage.DOUBLED).take()
    return _view(codec, taken, [f"You take; the cube is on {codec.cube(taken)[0]}"])


def pass_double(request: GameRequest) -> GameView:
    """The human passes the bot's double: the bot wins the cube's value before the double."""
    codec, step = _read(request.game)
    return _answer(codec, _require(step, HUMAN, "pass", Stage.DOUBLED).drop(), ["You pass"])


def resign(bot: Bot, request: ResignRequest) -> GameView:
    """The human resigns a single game, a gammon or a backgammon, and the bot accepts or plays on; in long nardy the
    game ends at once, oin or mars by the board (``level`` is not read)."""
    codec, step = _read(request.game)
    game = _require(step, HUMAN, "resign", Stage.BEFORE_ROLL, Stage.ROLLED, Stage.DOUBLED)
    fixed = codec.resign_level(game, HUMAN)
    level = request.level if fixed is None else fixed
    events = [f"You resign {codec.level_words[level - 1]}"]
    offer = codec.resign(game, HUMAN, level)
    if isinstance(offer, Finished):
        return _answer(codec, offer, events)
    on_roll = _on_roll(game)
    answers = bot.resign_decision(game.board, codec.cube_state(game, on_roll), level, request.plies)
    answer = answers.opponent_accepts if on_roll == HUMAN else answers.side_on_roll_accepts
    if not answer.accept:
        events.append("nardy declines and plays on")
        return _view(codec, offer.reject(), events)
    events.append("nardy accepts")
    return _answer(codec, offer.accept(), events)


def accept_resignation(request: GameRequest) -> GameView:
    """The human accepts the bot's resignation: the game ends, the human wins its level times the cube."""
    codec, step = _read(request.game)
    offer = _require(step, HUMAN, "accept", Stage.RESIGNED)
    return _answer(codec, offer.accept(), ["You accept nardy's resignation"])


def reject_resignation(bot: Bot, request: GameRequest) -> GameView:
    """The human rejects the bot's resignation: the bot plays on at once (it does not offer again this turn)."""
    codec, step = _read(request.game)
    offer = _require(step, HUMAN, "reject", Stage.RESIGNED)
    return _bot_plays(bot, request, codec, offer.reject(), ["You reject nardy's resignation; nardy plays on"])


def board(query: BoardQuery) -> BoardView:
    """The board and match of a position text of the query's game, seen by the side on roll."""
    codec = codec_for(query.variant)
    situation = codec.read_position(query.position)
    s = situation.state
    owners: dict[Owner, CubeOwner] = {Owner.ME: "on_roll", Owner.OPP: "opponent"}
    owner = owners.get(s.owner)
    return BoardView(
        position_id=situation.position_id,
        board=[int(x) for x in situation.board],
        dice=situation.dice,
        pips=codec.variant.pip_counts(situation.board),
        match_length=s.match_length,
        score=s.score,
        cube=s.cube,
        cube_owner=owner,
        crawford=s.crawford,
        double_offered=situation.double_offered,
    )
