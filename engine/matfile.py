"""Jellyfish ``.mat`` match files: recorded games as data, written and read as text.

A ``MatMatch`` holds the match length (0 = a money session), the two player names
(player 0 is the left column, player 1 the right) and its games; a ``MatGame`` the
score before it, its actions in order and who won how many points. Moves are text
in the mover's own numbering (24 -> 1), as the file holds them; ``replay_game``
checks them against the rules.

The layout is GNU Backgammon's own export, which its ``import mat`` reads back::

     7 point match

     Game 1
     Alice : 0                      Bob : 0
      1) 31: 8/5 6/5                 42: 8/4 6/4
      2) 65: 24/18 18/13              Doubles => 2
      3)  Takes                      33: 13/10 13/10 6/3 6/3
    ...
                                      Wins 2 points

Each line is ``%3d) ``, the left player's entry padded to 28 characters, then the
right player's. Turns alternate, so a line is one action of each side; a player
who moves first from the right leaves the first left entry empty. A ``Wins`` entry
that has no room beside the last action gets a line of its own without a number.
Moves are written one checker step at a time (``25`` = bar, ``0`` = off, ``*`` a
hit) as gnubg does; the reader also takes ``bar``/``off``, ``13/7*/5``, ``8/5(2)`` and XG's ``Resigns``.

The Crawford game's title says so: `` Game 3 (Crawford game)`` (GNU Backgammon's words; its importer reads
the game number and skips the rest). A long nardy record (docs/long_nardy.md, "Match records") starts with
the comment lines ``; [Variation "Long Nardy"]``, as GNU Backgammon and XG name a file's variation, and
``; [Rules "..."]``, its rule flags; its moves are long nardy's (no bar, no hits). A file without a
``Variation`` line, or with ``"Backgammon"``, is backgammon.

>>> game = MatGame((0, 0), (MatAction.of_move(0, (3, 1), "8/5 6/5"), MatAction.of_double(1, 2),
...                         MatAction.of_drop(0)), winner=1, points=1)
>>> print(format_mat(MatMatch(3, ("Alice", "Bob"), (game,))), end="")
 3 point match
<BLANKLINE>
 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5                  Doubles => 2
  2)  Drops                       Wins 1 point
<BLANKLINE>
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy as np

from engine.board import read_int, validate_dice
from engine.errors import BackgammonError, InvalidDiceError, InvalidMatchError, quote
from engine.game import Game, GameResult, IllegalActionError, Phase
from engine.match import MatchState, is_cube_value
from engine.plays import Play
from engine.position import START_POSITION, Position

if TYPE_CHECKING:
    from engine.long_nardy.rules import Rules
    from engine.variant import Variant

# Width of the left player's column, the separating space included (gnubg: "%-27s ").
LEFT_WIDTH = 28
# Width of the left half of a score line, before the right player's name.
NAME_WIDTH = 32


class InvalidMatFileError(InvalidMatchError):
    """A .mat text that cannot be read, or a recorded game that breaks the rules."""


class FileBoundError(InvalidMatFileError):
    """A match file with more games, actions, nodes or nesting than its reader's ``ReadBounds`` allow."""


# What one match file may hold, whatever its format, so that no file costs more to read (or to analyse)
# than its reader expects: a 25-point match has about 60 games and 1,000 actions.
MAX_GAMES = 2_000
MAX_ACTIONS = 10_000
# Nodes: SGF nodes (variations included), .xg records, the non-blank lines of a .mat or a position list.
MAX_NODES = 100_000
# SGF variations nested in each other (GNU Backgammon writes none).
MAX_DEPTH = 100
# A reader calls ``ReadBounds.check`` after every this many nodes.
CHECK_EVERY = 64
# Player names are cut to this many characters (XG's hold 128).
MAX_NAME_CHARS = 64
# Characters that reorder the text after them on a terminal or a web page.
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class ReadBounds:
    """What a reader of a match file reads before it refuses the file (``FileBoundError`` naming the bound).

    ``purpose`` ends the refusal ("at most 200 games are read"); ``check``, when given, is called every
    ``CHECK_EVERY`` nodes and may raise to stop the reading (a server's cancellation).
    """

    games: int = MAX_GAMES
    actions: int = MAX_ACTIONS
    nodes: int = MAX_NODES
    depth: int = MAX_DEPTH
    purpose: str = "read from one file"
    check: Optional[Callable[[], None]] = None


DEFAULT_BOUNDS = ReadBounds()


class Tally:
    """Counts what a reader has read of ``source`` against its ``ReadBounds``; the first count past one raises."""

    def __init__(self, bounds: ReadBounds, source: str) -> None:
        self.bounds, self.source = bounds, source
        self.games = self.actions = self.nodes = 0

    def _refuse(self, bound: int, what: str) -> FileBoundError:
        return FileBoundError(f"{self.source}: more than {bound} {what}: at most {bound} are {self.bounds.purpose}")

    def game(self) -> None:
        self.games += 1
        if self.games > self.bounds.games:
            raise self._refuse(self.bounds.games, "games")

    def action(self) -> None:
        self.actions += 1
        if self.actions > self.bounds.actions:
            raise self._refuse(self.bounds.actions, "actions (plays, doubles, takes and passes)")

    def node(self, what: str) -> None:
        """One more node (``what`` names them in the refusal: "SGF nodes", ".xg records", "lines")."""
        self.nodes += 1
        if self.nodes > self.bounds.nodes:
            raise self._refuse(self.bounds.nodes, what)
        if self.bounds.check is not None and self.nodes % CHECK_EVERY == 0:
            self.bounds.check()

    def depth(self, depth: int, where: str) -> None:
        if depth > self.bounds.depth:
            raise FileBoundError(
                f"{where}: variations nested more than {self.bounds.depth} deep: "
                f"at most {self.bounds.depth} levels are {self.bounds.purpose}"
            )


def clean_name(text: str) -> str:
    """A player's name as every output (JSON, HTML, a terminal, a .mat) can hold it: UTF-16 surrogate pairs
    joined and lone ones as U+FFFD, control and bidirectional-override characters dropped, ':' as a space,
    whitespace collapsed, ``Game `` as ``Game_`` (a .mat's game title), at most ``MAX_NAME_CHARS``; may be ''."""
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    text = "".join(" " if unicodedata.category(char) == "Cc" else char for char in text)
    text = " ".join(_BIDI_CONTROLS.sub("", text).replace(":", " ").split()).replace("Game ", "Game_")
    return text[:MAX_NAME_CHARS].rstrip()


class ActionKind(str, Enum):
    """What a player did on a turn."""

    MOVE = "move"
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"


@dataclass(frozen=True)
class MatAction:
    """One action of a player: a roll and its move, a double, a take or a drop.

    ``player``: 0 (left column) or 1 (right). ``dice`` and ``move`` (text in the
    mover's numbering, '' when the roll cannot be played) belong to a MOVE;
    ``cube`` is the value a DOUBLE turns the cube to.
    """

    player: int
    kind: ActionKind
    dice: Optional[tuple[int, int]] = None
    move: str = ""
    cube: int = 0

    def __post_init__(self) -> None:
        what = f"action {self!r}"
        if self.player not in (0, 1):
            raise InvalidMatFileError(f"{what}: player must be 0 or 1")
        object.__setattr__(self, "kind", ActionKind(self.kind))
        if self.kind is ActionKind.MOVE:
            if self.dice is None:
                raise InvalidDiceError(f"{what}: a move needs dice")
            object.__setattr__(self, "dice", validate_dice(self.dice))
            object.__setattr__(self, "move", " ".join(self.move.split()))
        elif self.dice is not None or self.move:
            raise InvalidMatFileError(f"{what}: only a move has dice and a move")
        if (self.kind is ActionKind.DOUBLE) != (self.cube != 0):
            raise InvalidMatFileError(f"{what}: a double, and only a double, has a cube value")
        if self.cube and (self.cube < 2 or not is_cube_value(self.cube)):
            raise InvalidMatFileError(f"{what}: a double turns the cube to a power of 2 from 2 up")

    @classmethod
    def of_move(cls, player: int, dice, move: str) -> "MatAction":
        """A roll and the move played (text in the mover's numbering)."""
        return cls(player, ActionKind.MOVE, dice=tuple(dice), move=move)

    @classmethod
    def of_play(cls, player: int, dice, play: Play) -> "MatAction":
        """A roll and ``play``, written one checker step at a time as gnubg exports it."""
        return cls.of_move(player, dice, " ".join(f"{s.src}/{s.dst}{'*' if s.hit else ''}" for s in play.steps))

    @classmethod
    def of_double(cls, player: int, cube: int) -> "MatAction":
        """``player`` doubles, turning the cube to ``cube``."""
        return cls(player, ActionKind.DOUBLE, cube=cube)

    @classmethod
    def of_take(cls, player: int) -> "MatAction":
        return cls(player, ActionKind.TAKE)

    @classmethod
    def of_drop(cls, player: int) -> "MatAction":
        return cls(player, ActionKind.DROP)


@dataclass(frozen=True)
class GameSetup:
    """Where a game starts when it does not start from the opening (a set-up position, as a GNU Backgammon
    .sgf can hold; a .mat file cannot): the board seen by ``turn``, the seat on roll, and the cube."""

    position: Position
    turn: int
    cube: int = 1
    cube_owner: Optional[int] = None


@dataclass(frozen=True)
class MatGame:
    """One game: the score (player 0, player 1) before it, its actions, the result.

    ``winner`` is None (and ``points`` 0) for a game the file leaves unfinished.
    ``setup``: None for a game from the opening position, else where it starts.
    ``crawford``: whether a match game with a side one point away is the Crawford game, where the
    file says so (a .sgf's ``RU[CrawfordGame]``; a single game has no history to tell); None: from
    the games before it.
    """

    score: tuple[int, int]
    actions: tuple[MatAction, ...]
    winner: Optional[int] = None
    points: int = 0
    setup: Optional[GameSetup] = None
    crawford: Optional[bool] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "score", tuple(int(s) for s in self.score))
        object.__setattr__(self, "actions", tuple(self.actions))
        if len(self.score) != 2 or min(self.score) < 0:
            raise InvalidMatFileError(f"game score {self.score}: expected two scores of 0 or more")
        if (self.winner is None) != (self.points == 0) or self.winner not in (0, 1, None) or self.points < 0:
            raise InvalidMatFileError(
                f"game result: winner {self.winner!r} with {self.points} points (a winner 0 or 1 scores points > 0)"
            )


@dataclass(frozen=True)
class MatMatch:
    """A match (``length`` > 0) or money session (``length`` 0) between two named players.

    ``jacoby``: a money session played with the Jacoby rule (a .sgf says so; a .mat cannot).
    ``variant``: the game's canonical name (``engine.variant.NAMES``); ``rules``: long nardy's rule
    flags (None for backgammon; long nardy's default rules when not given).
    """

    length: int
    players: tuple[str, str]
    games: tuple[MatGame, ...] = field(default=())
    jacoby: bool = False
    variant: str = "backgammon"
    rules: Optional[Rules] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "games", tuple(self.games))
        if self.variant not in ("backgammon", "long_nardy"):
            raise InvalidMatFileError(f"variant {quote(self.variant)}: expected backgammon or long_nardy")
        if self.variant == "long_nardy" and self.rules is None:
            from engine.long_nardy.rules import DEFAULT_RULES

            object.__setattr__(self, "rules", DEFAULT_RULES)
        if self.variant == "backgammon" and self.rules is not None:
            raise InvalidMatFileError("a backgammon match has no long nardy rules")
        if self.length < 0:
            raise InvalidMatFileError(f"match length {self.length}: cannot be negative")
        if len(self.players) != 2:
            raise InvalidMatFileError(f"players {self.players!r}: expected two names")
        for name in self.players:
            if not name or name != name.strip() or ":" in name or "\n" in name or "Game " in name:
                raise InvalidMatFileError(
                    f"player name {name!r}: must be non-empty, without outer spaces, ':', line breaks or 'Game '"
                )

    @property
    def game(self) -> Variant:
        """The game played, under its rules (``engine.variant``)."""
        from engine.variant import BACKGAMMON, long_nardy_variant

        return BACKGAMMON if self.rules is None else long_nardy_variant(self.rules)

    @property
    def final_score(self) -> tuple[int, int]:
        """The score after the last game."""
        if not self.games:
            return (0, 0)
        last = self.games[-1]
        score = list(last.score)
        if last.winner is not None:
            score[last.winner] += last.points
        return score[0], score[1]


# ---------------------------------------------------------------- writing


def _entry(action: MatAction) -> str:
    if action.kind is ActionKind.MOVE:
        assert action.dice is not None, "a move's dice are checked when it is made"
        d1, d2 = action.dice
        return f"{d1}{d2}:" + (f" {action.move}" if action.move else "")
    if action.kind is ActionKind.DOUBLE:
        return f" Doubles => {action.cube}"
    return " Takes" if action.kind is ActionKind.TAKE else " Drops"


def _wins(points: int) -> str:
    return f" Wins {points} point{'s' if points != 1 else ''}"


def _game_lines(game: MatGame, players: tuple[str, str]) -> list[str]:
    """The lines of one game, its title aside."""
    left = f" {players[0]} : {game.score[0]}"
    lines = [f"{left:<{NAME_WIDTH - 1}} {players[1]} : {game.score[1]}"]
    rows: list[tuple[str, Optional[str], bool]] = []  # (left entry, right entry, whether it is numbered)
    entries = [(a.player, _entry(a), True) for a in game.actions]
    if game.winner is not None:
        entries.append((game.winner, _wins(game.points), False))
    for player, text, numbered in entries:
        if player == 1 and rows and rows[-1][1] is None:
            row_left, _, row_numbered = rows[-1]
            rows[-1] = (row_left, text, row_numbered or numbered)
        else:
            rows.append((text, None, numbered) if player == 0 else ("", text, numbered))
    number = 0
    for left_text, right_text, numbered in rows:
        if numbered:
            number += 1
        prefix = f"{number:3d}) " if numbered else " " * 5
        lines.append((prefix + (f"{left_text:<{LEFT_WIDTH - 1}} {right_text}" if right_text else left_text)).rstrip())
    return lines


def format_mat(match: MatMatch) -> str:
    """The Jellyfish .mat text of ``match``, as GNU Backgammon exports it (a long nardy match: its header lines)."""
    lines = []
    if match.rules is not None:
        lines = [f'; [Variation "{LONG_NARDY_VARIATION}"]', f'; [Rules "{format_rules(match.rules)}"]', ""]
    lines += [f" {match.length} point match", ""]
    for k, game in enumerate(match.games, 1):
        if game.setup is not None:
            raise InvalidMatFileError(f"game {k} starts from a set-up position, which a .mat file cannot hold")
        title = f" Game {k}" + (f" {CRAWFORD_MARK}" if game.crawford and match.length else "")
        lines += [title] + _game_lines(game, match.players) + [""]
    return "\n".join(lines) + "\n"


def format_rules(rules: Rules) -> str:
    """Long nardy's rule flags as a .mat header writes them: ``opening=classic head-doubles=346 ...``."""
    return " ".join(
        [
            f"opening={rules.opening}",
            f"head-doubles={''.join(map(str, sorted(rules.head_doubles))) or 'none'}",
            f"block-check={rules.block_check}",
            f"cube={rules.cube}",
            f"last-roll-draw={'on' if rules.last_roll_draw else 'off'}",
        ]
    )


def parse_rules(text: str, where: str) -> Rules:
    """The rule flags of a ``Rules`` header (``format_rules``' words; flags left out keep their defaults)."""
    from engine.long_nardy.rules import Rules

    values: dict[str, Any] = {}
    for word in text.split():
        name, equals, value = word.partition("=")
        key = name.replace("-", "_")
        if not equals or key not in ("opening", "head_doubles", "block_check", "cube", "last_roll_draw"):
            raise InvalidMatFileError(
                f"{where}: rule {quote(word)}: expected opening=, head-doubles=, block-check=, cube= or last-roll-draw="
            )
        if key == "last_roll_draw" and value not in ("on", "off"):
            raise InvalidMatFileError(f"{where}: rule {quote(word)}: expected on or off")
        if key == "last_roll_draw":
            values[key] = value == "on"
        else:
            values[key] = "" if key == "head_doubles" and value == "none" else value
    try:
        return Rules(**values)
    except BackgammonError as error:
        raise InvalidMatFileError(f"{where}: {error}") from None


def write_mat(match: MatMatch, path: str | os.PathLike) -> None:
    """Write ``match`` to ``path`` as a .mat file."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(format_mat(match))


# ---------------------------------------------------------------- reading

# Numbers are read by _number: ASCII digits, bounded length, so int() never sees '²' or 5,000 digits.
_HEADER = re.compile(r"\s*(\d+)\s+point\s+match\s*", re.IGNORECASE)
_GAME = re.compile(r"\s*Game\s+(\d+)\s*(\(Crawford game\))?\s*", re.IGNORECASE)
# The header comments of a long nardy record, and the Crawford game's mark on its title line.
LONG_NARDY_VARIATION = "Long Nardy"
CRAWFORD_MARK = "(Crawford game)"
_VARIATION = re.compile(r'[;#]\s*\[Variation\s+"([^"]*)"\]\s*', re.IGNORECASE)
_RULES = re.compile(r'[;#]\s*\[Rules\s+"([^"]*)"\]\s*', re.IGNORECASE)
_SCORES = re.compile(r"\s*(\S.*?)\s*:\s*(\d+)\s+(\S.*?)\s*:\s*(\d+)\s*")
_ROLL = re.compile(r"([1-6])([1-6]):(.*)")
_DOUBLE = re.compile(r"Doubles\s*=>\s*(\d+)", re.IGNORECASE)
# GNU Backgammon writes a beaver (the take and a redouble at once, money only) as the taker's "Beavers => 4".
_BEAVER = re.compile(r"Beavers\s*=>\s*\d+", re.IGNORECASE)
# Other programs (XG among them) end a match's last game with "Wins 3 points and the match".
_WINS = re.compile(r"Wins\s+(\d+)\s+points?(?:\s+and\s+the\s+match)?", re.IGNORECASE)
# Bounds for the text, not for the rules: bot-against-bot money sessions turn the cube without limit
# (2^50 seen in a test), so numbers get up to 100 digits, far below int()'s 4,300; the rules are
# checked later.
_MAX_NUMBER = 10**100 - 1
_MAX_CUBE = _MAX_NUMBER


def _number(text: str, name: str, where: str, high: int = _MAX_NUMBER) -> int:
    """A number of a .mat line, or InvalidMatFileError naming the line."""
    return read_int(text, name, where, 0, high, InvalidMatFileError)


def _split_columns(line: str) -> tuple[str, Optional[str]]:
    """The left and right entries of a move line, cut where GNU Backgammon's importer cuts them.

    With two rolls on the line the right entry starts at the second roll (two
    characters before its colon); otherwise at the first double space after column 15.
    """
    first = line.find(":")
    second = line.find(":", first + 1) if first >= 0 else -1
    if second > 3:
        left, right = line[: second - 3], line[second - 2 :]
    elif len(line) > 15 and "  " in line[15:]:
        cut = line.index("  ", 15)
        left, right = line[:cut], line[cut + 1 :]
    else:
        left, right = line, None
    paren = left.find(")")
    return left[paren + 1 :] if paren >= 0 else left, right


class _GameReader:
    """Collects the entries of one game."""

    def __init__(self, score: tuple[int, int], tally: Tally, crawford: Optional[bool] = None) -> None:
        self.score, self.tally, self.crawford = score, tally, crawford
        self.actions: list[MatAction] = []
        self.winner: Optional[int] = None
        self.points = 0
        self.resigned: Optional[int] = None  # the player who resigned, whose opponent's Wins follows

    def add(self, entry: str, player: int, where: str) -> None:
        text = entry.strip()
        if not text:
            return
        if self.winner is not None:
            raise InvalidMatFileError(f"{where}: {quote(text)} after the game was won")
        roll, double, wins = _ROLL.fullmatch(text), _DOUBLE.fullmatch(text), _WINS.fullmatch(text)
        if roll or double or text.lower().startswith(("take", "drop")):
            self.tally.action()
        if roll:
            self.actions.append(MatAction.of_move(player, (int(roll[1]), int(roll[2])), roll[3]))
        elif double:
            self.actions.append(MatAction.of_double(player, _number(double[1], "cube value", where, _MAX_CUBE)))
        elif text.lower().startswith("take"):
            self.actions.append(MatAction.of_take(player))
        elif text.lower().startswith("drop"):
            self.actions.append(MatAction.of_drop(player))
        elif text.lower().startswith("resign"):
            self.resigned = player
        elif wins:
            if self.resigned == player:
                raise InvalidMatFileError(f"{where}: {quote(text)} by the player who resigned")
            self.winner, self.points = player, _number(wins[1], "points", where)
        elif _BEAVER.fullmatch(text):
            raise InvalidMatFileError(
                f"{where}: {quote(text)}: a beaver cannot be replayed (nardy plays without beavers)"
            )
        else:
            raise InvalidMatFileError(
                f"{where}: cannot read {quote(text)} (expected a roll, Doubles, Takes, Drops, Resigns or Wins)"
            )

    def game(self, where: str) -> MatGame:
        try:
            return MatGame(self.score, tuple(self.actions), self.winner, self.points, crawford=self.crawford)
        except InvalidMatFileError as error:
            raise InvalidMatFileError(f"{where}: {error}") from None


def parse_mat(
    text: str, source: str = ".mat text", bounds: ReadBounds = DEFAULT_BOUNDS, variant: Optional[str] = None
) -> MatMatch:
    """The match in a Jellyfish .mat text; raise InvalidMatFileError naming ``source`` and the line (its subclass
    FileBoundError past ``bounds``).

    Blank lines and comment lines (``;`` or ``#``: gnubg's ``; [EventDate ...]``, the ``; [Site ...]``,
    ``; [Player 1 ...]``, ... that XG and sites write) are skipped wherever they are, but for the ``Variation``
    and ``Rules`` lines that name the game (backgammon without them); a BOM, Windows line ends, any case
    of the keywords and a last line without a line end are read. The score before each game must be the previous
    score plus the previous game's points. ``variant``, when given (any name ``engine.variant.find_variant``
    knows): the game the caller expects; a record of the other game is refused.
    """
    length: Optional[int] = None
    players: Optional[tuple[str, str]] = None
    games: list[MatGame] = []
    reader: Optional[_GameReader] = None
    expect_scores = False
    crawford: Optional[bool] = None
    game_name, rules_text = "backgammon", None
    tally = Tally(bounds, source)
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.lstrip("\ufeff").rstrip()
        where = f"{source} line {number}"
        if not line.strip() or line.lstrip()[0] in ";#":
            if (variation := _VARIATION.fullmatch(line.strip())) and length is None:
                game_name = _variation(variation[1], where)
            elif (rules_line := _RULES.fullmatch(line.strip())) and length is None:
                rules_text = (rules_line[1], where)
            continue
        tally.node("lines")
        if length is None:
            header = _HEADER.fullmatch(line)
            if not header:
                raise InvalidMatFileError(f"{where}: expected 'N point match', got {quote(line.strip())}")
            length = _number(header[1], "match length", where)
        elif game_title := _GAME.fullmatch(line):
            if _number(game_title[1], "game number", where) != len(games) + (reader is not None) + 1:
                raise InvalidMatFileError(f"{where}: {quote(line.strip())} is out of order")
            if reader is not None:
                games.append(reader.game(where))
            tally.game()
            reader, expect_scores, crawford = None, True, True if game_title[2] else None
        elif expect_scores:
            scores = _SCORES.fullmatch(line)
            if not scores:
                raise InvalidMatFileError(f"{where}: expected 'name : score   name : score', got {quote(line.strip())}")
            players = players or (scores[1], scores[3])
            if (scores[1], scores[3]) != players:
                raise InvalidMatFileError(
                    f"{where}: players {quote(scores[1])} and {quote(scores[3])}, expected {players}"
                )
            score = (_number(scores[2], "score", where), _number(scores[4], "score", where))
            expected = MatMatch(length, players, tuple(games[-1:])).final_score  # the last game's
            if score != expected:
                raise InvalidMatFileError(f"{where}: score {score} before game {len(games) + 1}, expected {expected}")
            if crawford and (not length or score.count(length - 1) != 1 or max(score) >= length):
                raise InvalidMatFileError(
                    f"{where}: a Crawford game needs exactly one side at {length - 1}, not {score}"
                )
            reader, expect_scores = _GameReader(score, tally, crawford), False
        elif reader is None:
            raise InvalidMatFileError(f"{where}: {quote(line.strip())} outside a game")
        else:
            left, right = _split_columns(line)
            reader.add(left, 0, where)
            if right is not None:
                reader.add(right, 1, where)
    if length is None:
        raise InvalidMatFileError(f"{source}: no 'N point match' header")
    _expect_game(game_name, variant, source)
    if expect_scores:
        raise InvalidMatFileError(f"{source}: the last game has no score line")
    if reader is None:
        raise InvalidMatFileError(f"{source}: no games")
    games.append(reader.game(f"{source} end"))
    assert players is not None, "a game is read only after a score line names the players"
    names = (clean_name(players[0]) or "Player 1", clean_name(players[1]) or "Player 2")
    rules = None
    if game_name == "long_nardy":
        rules = parse_rules(*rules_text) if rules_text else None
    elif rules_text:
        raise InvalidMatFileError(f"{rules_text[1]}: long nardy rules in a backgammon record")
    return MatMatch(length, names, tuple(games), variant=game_name, rules=rules)


def _variation(name: str, where: str) -> str:
    """The canonical name of the game a ``Variation`` header names (GNU Backgammon's ``Backgammon``, ours
    ``Long Nardy``); InvalidMatFileError for a game nardy does not play."""
    from engine.variant import find_variant

    try:
        return find_variant(name).name
    except BackgammonError:
        raise InvalidMatFileError(
            f"{where}: variation {quote(name)}: not a game nardy plays (Backgammon or {LONG_NARDY_VARIATION})"
        ) from None


def _expect_game(found: str, wanted: Optional[str], source: str) -> None:
    """Refuse a record of ``found`` where the caller asked for ``wanted`` (None: either game)."""
    if wanted is None:
        return
    from engine.variant import find_variant

    try:
        expected = find_variant(wanted)
    except BackgammonError as error:
        raise InvalidMatFileError(f"{source}: {error}") from None
    if expected.name != found:
        title = found.replace("_", " ")
        raise InvalidMatFileError(f"{source}: a {title} match record, not a {expected.title} one")


def read_mat(path: str | os.PathLike, variant: Optional[str] = None) -> MatMatch:
    """The match in the .mat file at ``path`` (of the game ``variant`` when given, ``parse_mat``)."""
    with open(path, encoding="utf-8") as f:
        return parse_mat(f.read(), source=str(path), variant=variant)


# ---------------------------------------------------------------- checking


@dataclass(frozen=True)
class Replay:
    """Where a recorded game's actions lead: the position seen by player 0, the cube, and
    whether they end the game (a drop, or a side has borne off; else the loser resigned)."""

    position: Any  # the game's position type (``Position``, ``LongPosition``)
    cube: int
    cube_owner: Optional[int]
    over: bool

    @property
    def board(self) -> np.ndarray:
        """The final board (read-only), seen by player 0."""
        return self.position.board


def cube_match(game: Any) -> MatchState:
    """The match state of a game in progress with its cube as it stands: backgammon's ``Game`` keeps the cube
    in its match state, long nardy's ``LongGame`` its own (``cube``, ``cube_owner``)."""
    if isinstance(game, Game):
        return game.match
    return replace(game.match, cube_value=game.cube, cube_owner=game.cube_owner)


def match_id_of(game: Any) -> str:
    """The GNU Backgammon Match ID of a game in progress (cube, score, turn, dice). It holds no board, so long
    nardy's is backgammon's of the same cube, score, turn and dice: ``LongNardyCodec.read_position`` reads it."""
    if not isinstance(game, Game):
        game = Game(cube_match(game), game.phase, game.turn, START_POSITION, game.dice)
    return game.match_id


def _replay_action(game: Any, action: MatAction, variant: Variant) -> Any:
    """``game`` (a ``GameOn``) after one recorded ``action``; raise BackgammonError for a broken rule."""
    if action.player != game.actor:
        raise IllegalActionError("not this player's turn to do that")
    if action.kind is ActionKind.MOVE:
        assert action.dice is not None
        if game.phase is Phase.BEFORE_ROLL:
            game = game.roll(action.dice)
        return game.move(variant.parse_play(action.move, game.board, action.dice))
    if action.kind is ActionKind.DOUBLE:
        match = cube_match(game)
        if action.cube != 2 * match.cube_value or not game.may_double:
            raise IllegalActionError(
                f"cannot double to {action.cube} with cube {match.cube_value} owned by {match.cube_owner}"
            )
        return game.double()
    return game.take() if action.kind is ActionKind.TAKE else game.drop()


def game_match_state(game: MatGame, running: MatchState) -> MatchState:
    """The match state ``game`` is played in: ``running`` (the state the games before it leave) with the
    game's score, and the game's own Crawford flag where it has one that fits the score."""
    state = replace(running, score=game.score)
    length = state.match_length
    if game.crawford is None or not length or game.score.count(length - 1) != 1 or max(game.score) >= length:
        return state
    return replace(state, crawford=game.crawford, post_crawford=not game.crawford)


def game_at_start(game: MatGame, match: MatchState, variant: Optional[Variant] = None) -> Any:
    """The game (a ``engine.variant.GameOn``) a recorded game's first action is played on, in ``match`` (score and
    rules): the opening position with the first actor on roll, or the game's ``setup`` with its cube (backgammon
    only). ``variant``: the game (default backgammon). An impossible setup raises an engine error."""
    first = game.actions[0].player if game.actions else 0
    if variant is not None and variant.rules is not None:
        if game.setup is not None:
            raise InvalidMatFileError("a long nardy game starts from its opening position, not a set-up one")
        opening: Any = variant.new_game(match)  # a LongGame
        return replace(opening, phase=Phase.BEFORE_ROLL, turn=first, first_mover=first)
    if game.setup is None:
        return Game(match, Phase.BEFORE_ROLL, first, START_POSITION)
    setup = game.setup
    match = replace(match, cube_value=setup.cube, cube_owner=setup.cube_owner)
    return Game(match, Phase.BEFORE_ROLL, setup.turn, setup.position)


def replay_game(game: MatGame, variant: Optional[Variant] = None) -> Replay:
    """Play ``game``'s actions from the start position (``engine.game``, or ``variant``'s game); raise
    InvalidMatFileError at the first broken rule.

    Checks: turns alternate from the first mover, whose first roll is taken as
    recorded; every move is a legal play of its roll (``engine.notation.parse_move``),
    only the side about to roll doubles (not when the opponent owns the cube), each
    double is answered, a take doubles the cube, and the game ends exactly at a
    drop or when a side has borne off. ``position`` of a long nardy game is its ``LongPosition``.
    """
    from engine.variant import BACKGAMMON, Finished

    variant = BACKGAMMON if variant is None else variant
    if not game.actions and game.setup is None:
        return Replay(variant.position(variant.start), 1, None, False)
    # The match length is not part of a game's record: the cube is checked as in a money game.
    try:
        state: Any = game_at_start(game, MatchState(score=game.score), variant)
    except BackgammonError as error:
        raise InvalidMatFileError(f"game setup: {error}") from None
    for i, action in enumerate(game.actions, 1):
        what = f"game action {i} ({action.kind.value} by player {action.player})"
        if isinstance(state, Finished):
            raise InvalidMatFileError(f"{what}: the game is already over")
        try:
            state = _replay_action(state, action, variant)
        except BackgammonError as error:
            raise InvalidMatFileError(f"{what}: {error}") from None
    if isinstance(state, Finished):
        position = state.position if state.winner in (0, None) else state.position.flipped()
        owner = state.match.cube_owner if isinstance(state, GameResult) else None
        return Replay(position, state.cube, owner, True)
    match = cube_match(state)
    position = state.position if state.turn == 0 else state.position.flipped()
    return Replay(position, match.cube_value, match.cube_owner, False)
