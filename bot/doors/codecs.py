"""Each game's codec for the front doors: what the terminal, the HTTP API and the web board read and write
differently in backgammon and long nardy, so that each door is written once.

A ``GameCodec`` holds a game's position text (Position ID, ``PositionID:MatchID`` or XGID in backgammon,
long nardy's Position ID) read into a ``Situation``, the Position ID of a board, the name the HTTP API and
the web board give the game, the probability columns a hint table shows, the words of its resignation
levels, the board drawn as text, the cube of a game in progress, the web board's game token, and the few
actions the two state machines spell differently (a new game, a resignation). ``codec_for`` finds a
game's codec by any name of its variant (``engine.variant.find_variant``); ``codec_of_token`` by a web
game token. This is the one module of ``bot.doors`` that chooses code by the game.

Long nardy's modules (and the engine's game machinery) load only where a game or a long nardy position
is read, so a backgammon hint never loads them.

>>> codec_for("long").api_name, codec_for("bg").columns
('long', ('Win', 'W g', 'W bg', 'L g', 'L bg'))
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Literal, Optional

import numpy as np

from bot.doors.bounds import MAX_MATCH_LENGTH
from bot.doors.situation import Situation, parse_position
from bot.equity.cube import CubeState, Owner, cube_state_for
from engine.errors import InvalidMatchError, quote
from engine.match import MAX_CUBE, MatchState
from engine.variant import BACKGAMMON, Finished, GameOn, Variant, find_variant

# A game in progress or finished, of the codec's game (``engine.variant.GameOn`` or ``Finished``): the two
# engines' games share those protocols, and each codec reads the fields its engine adds.
Step = Any
# The game as the HTTP API's and the web board's ``variant`` field names it.
ApiName = Literal["backgammon", "long"]

# A money session's score stays below this, so that the largest win (a backgammon on the largest cube)
# still fits the Match ID's 15-bit score field (long nardy's token keeps the same bound).
MAX_MONEY_SCORE = (1 << 15) - 1 - 3 * MAX_CUBE


class GameCodec:
    """What the doors read and write in one game; the subclasses are the two games."""

    variant: Variant
    api_name: ApiName
    # The column titles of a hint table: the game's own outcomes (``bot.facade.outcome_columns``).
    columns: tuple[str, ...]
    # A resignation at level 1, 2, ...: "Resign a gammon" (index 1).
    level_words: tuple[str, ...]
    # What follows "a money game" or "a 3-point match" in the web board's first event ("" for backgammon).
    game_words: str = ""
    # The probabilities of ``columns`` as an evaluation's line names them.
    probability_words: tuple[str, ...]
    # The terminal's help: example moves, the resign command, notes after the commands.
    move_help: str
    resign_help: str
    help_notes: str = ""
    # The fixed-rule opponent of ``nardy match --opponent`` (pubeval, the long nardy heuristic).
    fixed_opponent: str
    # A match summary's rows of the wins above a single, in order (gammons and backgammons; mars).
    won_words: tuple[str, ...]
    # Whether money sessions may be played with the Jacoby rule, and GNU Backgammon's .sgf holds the game.
    jacoby: bool = False
    sgf: bool = False

    @property
    def match_variant(self) -> Variant:
        """The game computer players' matches and money sessions play: the variant, with the doubling cube."""
        return self.variant

    def read_position(self, text: str) -> Situation:
        """The situation a position text of this game describes (a '+' may arrive as a space)."""
        raise NotImplementedError

    def position_id(self, board: np.ndarray) -> str:
        """The Position ID of a board (mover's view)."""
        return str(self.variant.position(board).id)

    def new_game(self, match: MatchState, cube: bool = True) -> GameOn:
        """A game before its opening roll, from the match between games; ``cube``: with the doubling cube (a
        match always has it, for the Crawford rule to mean something)."""
        raise NotImplementedError

    def cube(self, game: Step) -> tuple[int, Optional[int]]:
        """(the stake, the seat owning the cube or None: centred) of a game; the stake 0 where it has no cube."""
        raise NotImplementedError

    def cube_state(self, game: Step, seat: int) -> CubeState:
        """The cube and match score of ``game`` seen by ``seat``, as the bot's decisions take them."""
        raise NotImplementedError

    def resign(self, game: Step, seat: int, level: int) -> Step:
        """``seat`` resigns ``level``: an offer the other side answers (backgammon), or the game's end (long nardy)."""
        raise NotImplementedError

    def resign_level(self, game: Step, seat: int) -> Optional[int]:
        """The level ``seat`` would resign at when the rules fix it (long nardy); None when the player chooses."""
        return None

    def render(self, game: Step, seat: int, names: tuple[str, str]) -> str:
        """The board of ``game`` drawn from ``seat``'s side, with dice, cube and score; ``names`` (seat, other)."""
        raise NotImplementedError

    def match_id(self, game: Step) -> str:
        """The Match ID of a game; '' in a game that has none."""
        return ""

    def owns_token(self, token: str) -> bool:
        """Whether a web game token is one of this game's."""
        raise NotImplementedError

    def read_token(self, token: str) -> Step:
        """The game (or finished game) a web game token describes; an engine error naming what is wrong."""
        raise NotImplementedError

    def token(self, game: Step) -> str:
        """The web game token of a game, or of a finished game (backgammon: the winner on roll; long nardy, whose
        token has no finished state: the next game's, before its opening roll, or '' once the match is won)."""
        raise NotImplementedError


def check_reachable(m: MatchState, what: str, longest: int = MAX_MATCH_LENGTH) -> None:
    """Refuse a token's match that no game against the bot reaches (the token is not signed: docs/http_limits.md):
    a match longer than ``longest`` (the match equity table's reach), a money score the next win could not fit."""
    if m.match_length > longest:
        raise InvalidMatchError(
            f"{what}: a {m.match_length}-point match; nardy plays matches of at most "
            f"{longest} points (its match equity table's reach)"
        )
    if not m.match_length and max(m.score) > MAX_MONEY_SCORE:
        raise InvalidMatchError(
            f"{what}: money score {m.score[0]}-{m.score[1]}; at most {MAX_MONEY_SCORE} "
            "points each, so that the next win still fits the Match ID"
        )


class BackgammonCodec(GameCodec):
    """Backgammon: GNU Backgammon's IDs and XGIDs, its notation and board, the token ``PositionID:MatchID``."""

    variant = BACKGAMMON
    api_name: ApiName = "backgammon"
    columns = ("Win", "W g", "W bg", "L g", "L bg")
    level_words = ("a single game", "a gammon", "a backgammon")
    probability_words = ("win", "win gammon", "win bg", "lose gammon", "lose bg")
    move_help = "a move like 24/18 13/11, bar/22*, 6/off, 8/5(2)"
    resign_help = "resign [single|gammon|backgammon]   offer to resign (asked which, then confirmed)"
    fixed_opponent = "pubeval"
    won_words = ("Gammons won", "Backgammons won")
    jacoby = sgf = True

    def read_position(self, text: str) -> Situation:
        return parse_position(text.replace(" ", "+"))

    def new_game(self, match: MatchState, cube: bool = True) -> GameOn:
        from engine.game import new_game

        return new_game(match)

    def cube(self, game: Step) -> tuple[int, Optional[int]]:
        return game.match.cube_value, game.match.cube_owner

    def cube_state(self, game: Step, seat: int) -> CubeState:
        return cube_state_for(game.match, seat)

    def resign(self, game: Step, seat: int, level: int) -> Step:
        return game.resign(seat, level)

    def render(self, game: Step, seat: int, names: tuple[str, str]) -> str:
        from engine.render import render_board

        owner = game.match.cube_owner
        view = game.position if getattr(game, "turn", seat) == seat else game.position.flipped()
        return render_board(
            view.board,
            dice=getattr(game, "dice", None),
            cube_value=game.match.cube_value,
            cube_owner=0 if owner is None else 1 if owner == seat else -1,
            score=(game.match.score[seat], game.match.score[1 - seat]),
            match_length=game.match.match_length,
            names=names,
        )

    def match_id(self, game: Step) -> str:
        return str(game.ids()[1])

    def owns_token(self, token: str) -> bool:
        return not LONG_NARDY_CODEC.owns_token(token)

    def read_token(self, token: str) -> Step:
        from engine.game import Game, from_ids

        text = token.strip().replace(" ", "+")
        if text.upper().startswith("XGID=") or ":" not in text:
            raise InvalidMatchError(f"game {token!r}: expected PositionID:MatchID")
        position_id, _, match_id = text.partition(":")
        step = from_ids(position_id, match_id)
        if isinstance(step, Game) and step.resignation is not None and step.resignation.player != 1:
            raise InvalidMatchError(f"game {token!r}: nardy answers your resignation at once, no game token holds one")
        check_reachable(step.match, f"game {quote(token, 40)}")
        return step

    def token(self, game: Step) -> str:

        return ":".join(game.ids())


# ---------------------------------------------------------------- long nardy

_PREFIX = "long"
_SEATS = {"h": 0, "b": 1, "-": None}
_SEAT_LETTERS = {seat: letter for letter, seat in _SEATS.items()}
_PHASE_WORDS = ("opening", "roll", "move", "doubled")
_FIELDS = "long:POSITIONID:PHASE:TURN:FIRST:DICE:CUBE:OWNER:HUMAN-BOT:CUBERULE:LENGTH"
_DICE = re.compile(r"[1-6]{2}", re.ASCII)
_NUMBER = re.compile(r"[0-9]{1,5}", re.ASCII)
_SCORE = re.compile(r"([0-9]{1,5})-([0-9]{1,5})", re.ASCII)
_LENGTH = re.compile(r"([0-9]{1,3})([cp]?)", re.ASCII)


class LongNardyCodec(GameCodec):
    """Long nardy: its 13-character Position ID, its board, the token of ``_FIELDS``; in a match, backgammon's
    Match ID of the same cube, score, turn and dice (``match_id``).

    Token: ``POSITIONID`` seen by the side on roll (the start in the opening); ``PHASE`` opening, roll, move or
    doubled; ``TURN``, ``FIRST`` (who started) and ``OWNER`` (of the cube) ``h`` (the human, seat 0), ``b``
    (the bot, seat 1) or ``-``; ``DICE`` e.g. ``31`` or ``-``; ``CUBE`` the stake; ``HUMAN-BOT`` the score;
    ``CUBERULE`` ``none`` or ``doubling``; ``LENGTH`` the match length (0: money), ``c`` after it in the
    Crawford game, ``p`` after it.
    """

    api_name: ApiName = "long"
    columns = ("Win", "W mars", "L mars")
    game_words = " of long nardy"
    level_words = ("a single game (oin)", "a mars")
    probability_words = ("win", "win mars", "lose mars")
    move_help = "a move like 24/15, 24/18 18/15, 13/7(2), 6/off"
    resign_help = "resign          end the game at once: a mars while you have borne off no checker, else oin"
    help_notes = (
        "\nLong nardy has no bar and no hitting. The rules, for players: docs/long_nardy_rules.md, or "
        "/rules/long-nardy on the web board (nardy serve)."
    )
    fixed_opponent = "heuristic"
    won_words = ("Mars won",)

    @property
    def variant(self) -> Variant:  # type: ignore[override]
        return find_variant("long_nardy")

    @property
    def match_variant(self) -> Variant:
        from engine.variant import long_nardy_variant

        rules = self.variant.rules
        assert rules is not None
        return long_nardy_variant(replace(rules, cube="doubling"))

    def read_position(self, text: str) -> Situation:
        """A long nardy Position ID, money play with a centred cube; or ``PositionID:MatchID``, the Match ID
        (GNU Backgammon's, as the analysis of a long nardy match names each decision's) giving dice, cube and score."""
        from engine.long_nardy import LongPosition, check_game_on
        from engine.match_id import decode_match_id

        # A "+" sent unescaped in a query arrives as a space: read it back, so strip no spaces.
        position_id, colon, match_id = text.strip("\t\r\n").replace(" ", "+").partition(":")
        position = LongPosition.from_id(position_id)
        check_game_on(position.board, f"long nardy position {quote(text)}")
        if not colon:
            return Situation(position.board, None, CubeState(), position_id=position.id)
        m = decode_match_id(match_id)
        match = MatchState(m.match_length, m.score, m.cube_value, m.cube_owner, crawford=m.crawford)
        state = cube_state_for(match, m.player_on_roll)
        return Situation(position.board, m.dice, state, m.double_offered, position_id=position.id)

    def new_game(self, match: MatchState, cube: bool = True) -> GameOn:
        from engine.long_nardy import new_long_game

        rules = self.variant.rules
        assert rules is not None
        return new_long_game(match, replace(rules, cube="doubling" if cube or match.match_length else "none"))

    def cube(self, game: Step) -> tuple[int, Optional[int]]:
        from engine.long_nardy import LongGame

        if game.rules.cube == "none":
            return 0, None
        return (game.cube, game.cube_owner) if isinstance(game, LongGame) else (1, None)

    def cube_state(self, game: Step, seat: int) -> CubeState:
        owner = game.cube_owner
        m = game.match
        return CubeState(
            cube=game.cube,
            owner=Owner.CENTERED if owner is None else Owner.ME if owner == seat else Owner.OPP,
            match_length=m.match_length,
            score=(m.score[seat], m.score[1 - seat]) if m.match_length else (0, 0),
            crawford=m.crawford,
        )

    def resign(self, game: Step, seat: int, level: int) -> Step:
        return game.resign(seat)

    def resign_level(self, game: Step, seat: int) -> Optional[int]:
        from engine.long_nardy.board import borne_off

        position = game.position if game.turn == seat else game.position.flipped()
        return 1 if borne_off(position.board)[0] else 2

    def render(self, game: Step, seat: int, names: tuple[str, str]) -> str:
        from engine.long_nardy import render_long_board

        view = game.position if getattr(game, "turn", seat) == seat else game.position.flipped()
        stake, owner = self.cube(game)
        holder = "centred" if owner is None else f"owned by {names[owner != seat]}"
        m = game.match
        note = "Crawford game, no cube" if m.crawford else f"cube {stake}, {holder}" if stake else ""
        return render_long_board(
            view.board,
            dice=getattr(game, "dice", None),
            cube=note,
            score=(m.score[seat], m.score[1 - seat]) if m.match_length else None,
            match_length=m.match_length,
            names=names,
        )

    def match_id(self, game: Step) -> str:
        """In a match, GNU Backgammon's Match ID of the game in progress (``read_position`` reads it back, so the
        hint ranks by match-winning chances); '' in money play and once the game is over."""
        from engine.matfile import match_id_of

        return match_id_of(game) if game.match.match_length and not isinstance(game, Finished) else ""

    def owns_token(self, token: str) -> bool:
        return token.strip().startswith(_PREFIX + ":")

    def token(self, game: Step) -> str:
        from engine.long_nardy import LongGame, new_long_game

        if not isinstance(game, LongGame):
            if game.next_match.is_over:
                return ""  # the match is won: no game follows, and the token has no finished state
            game = new_long_game(game.next_match, game.rules)
        dice = "-" if game.dice is None else f"{game.dice[0]}{game.dice[1]}"
        human, bot = game.match.score
        m = game.match
        length = f"{m.match_length}{'c' if m.crawford else 'p' if m.post_crawford else ''}"
        return ":".join(
            [
                _PREFIX,
                game.position.id,
                _PHASE_WORDS[_phases().index(game.phase)],
                _SEAT_LETTERS[game.turn],
                _SEAT_LETTERS[game.first_mover],
                dice,
                str(game.cube),
                _SEAT_LETTERS[game.cube_owner],
                f"{human}-{bot}",
                game.rules.cube,
                length,
            ]
        )

    def read_token(self, token: str) -> Step:
        """The token is open (docs/http_limits.md), so each field is checked to be one a game against the bot
        reaches: a position with a game on, the start in the opening, dice only to be played, a cube that is a
        power of two up to ``MAX_CUBE`` (below it when doubled), centred only on 1 and doubled only by a side
        with access, a match score short of the length with the Crawford flags it has, a money score the next
        win still fits."""
        from engine.game import Phase
        from engine.long_nardy import START, LongGame, LongPosition, check_game_on
        from bot.equity.met import met_for

        what = f"game {quote(token, 60)}"
        parts = token.strip().replace(" ", "+").split(":")
        if len(parts) != 11 or parts[0] != _PREFIX:
            raise InvalidMatchError(f"{what}: expected {_FIELDS}")
        _, position_id, phase, turn, first, dice, cube, owner, score, cube_rule, length = parts

        def refuse(field: str, value: str, expected: str) -> InvalidMatchError:
            return InvalidMatchError(f"{what}: {field} {quote(value, 20)}: expected {expected}")

        if phase not in _PHASE_WORDS:
            raise refuse("PHASE", phase, "opening, roll, move or doubled")
        stage = _phases()[_PHASE_WORDS.index(phase)]
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
        scores, lengths = _SCORE.fullmatch(score), _LENGTH.fullmatch(length)
        if scores is None:
            raise refuse("HUMAN-BOT", score, "the score, e.g. 3-1")
        if lengths is None:
            raise refuse("LENGTH", length, "the match length (0: money), then c in the Crawford game, p after it")
        match = _match_of(
            int(lengths[1]), (int(scores[1]), int(scores[2])), lengths[2], f"{what}: LENGTH {quote(length, 8)}"
        )
        check_reachable(match, what, met_for("long_nardy").size)
        if match.crawford and stake != 1:
            raise refuse("CUBE", cube, "1: the Crawford game is played without the cube")
        position = LongPosition.from_id(position_id)
        check_game_on(position.board, f"{what}: POSITIONID")
        if opening and position != LongPosition(START):
            raise refuse("POSITIONID", position_id, f"the start, {LongPosition(START).id}, in the opening")
        rules = self.variant.rules
        assert rules is not None
        return LongGame(
            replace(rules, cube=cube_rule),
            match,
            stage,
            _SEATS[turn],
            position,
            None if dice == "-" else (int(dice[0]), int(dice[1])),
            stake,
            _SEATS[owner],
            _SEATS[first],
        )


def _phases() -> tuple:
    """The engine's phases in ``_PHASE_WORDS``' order (loaded with the game machinery)."""
    from engine.game import Phase

    return (Phase.OPENING, Phase.BEFORE_ROLL, Phase.ROLLED, Phase.DOUBLED)


def _match_of(length: int, score: tuple[int, int], flag: str, what: str) -> MatchState:
    """The match of a long nardy token: money (length 0, no flag) or a match not yet won, Crawford (``c``) or
    post-Crawford (``p``) exactly when a side is one point away."""
    if not length:
        if flag:
            raise InvalidMatchError(f"{what}: a money game has no Crawford rule")
        return MatchState(score=score)
    if max(score) >= length:
        raise InvalidMatchError(f"{what}: the score {score[0]}-{score[1]} has already won the match")
    if bool(flag) != (max(score) == length - 1):
        raise InvalidMatchError(f"{what}: c (Crawford) or p (after it) exactly when a side is 1 point away")
    return MatchState(match_length=length, score=score, crawford=flag == "c", post_crawford=flag == "p")


BACKGAMMON_CODEC = BackgammonCodec()
LONG_NARDY_CODEC = LongNardyCodec()
_CODECS = {"backgammon": BACKGAMMON_CODEC, "long_nardy": LONG_NARDY_CODEC}


def codec_for(variant: str | Variant) -> GameCodec:
    """The codec of a game, by any name of its variant or the ``Variant`` (InvalidOptionError naming the names)."""
    return _CODECS[(variant if isinstance(variant, Variant) else find_variant(variant)).name]


def codec_of_token(token: str) -> GameCodec:
    """The codec of the game a web game token belongs to."""
    return LONG_NARDY_CODEC if LONG_NARDY_CODEC.owns_token(token) else BACKGAMMON_CODEC
