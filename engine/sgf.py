"""GNU Backgammon's .sgf match files (SGF, ``GM[6]``): read into ``engine.matfile``'s types, and written.

GNU Backgammon saves a match, a money session, a game or a position (``save match|game|position``)
as one SGF game tree per game (its ``sgf.c``)::

    (;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:3][game:0][ws:0][bs:0]
    PW[Alice]PB[Bob]RU[Crawford]RE[B+2]
    ;B[31sxsu]
    ;W[52mhmk]
    ;W[double]
    ;B[take]
    ...)

- the root node: ``MI`` (match length, 0 = money; game number from 0; the score of player 0,
  ``ws``, and player 1, ``bs``, before the game), ``PW``/``PB`` (player 0 "white", player 1
  "black"), ``RU`` (rules separated by ':': ``Crawford``, ``CrawfordGame``, ``Jacoby``,
  ``NoCube``, variants), ``RE`` (``W+2``, ``B+1R``: the winner, the points, ``R`` for a
  resignation), ``CV`` (automatic doubles);
- a move ``W[52mhmk]``/``B[...]``: the dice, then a from and a to letter per checker step, in one
  frame for the whole board: ``'a' + (p - 1)`` is player 0's point p and ``'x' - (p - 1)`` player
  1's point p; ``y`` is either bar and ``z`` off. ``[double]``, ``[take]``, ``[drop]`` are cube actions;
- setup: ``AE`` empties points (``a:y`` a range), ``AW``/``AB`` add one checker of player 0/1 per
  value in the same frame, ``PL[W|B]`` sets the side on roll, ``CV[n]`` the cube, ``CP[c|w|b]`` its
  owner, ``DI`` the dice;
- gnubg's stored analysis (``A``, ``DA``, ``MR``, ``LU``, ``BM``, ``DO``, ``GS``, ...) and comments are
  skipped on reading. On writing, ``SgfNote``\\ s carry an analysis in the properties gnubg shows
  without its own evaluations: the skill marks ``DO[]``/``BM[1|2]`` (checker play, cube actions)
  and ``DC[]``/``BC[1|2]`` (a move's missed cube decision), the luck ``LU`` with ``GW``/``GB``,
  and a comment ``C``.

As gnubg's reader does, only the main line of a tree is read (the first variation of each branch).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Iterator, Mapping, Optional

import numpy as np

from engine.errors import BackgammonError, quote
from engine.game import Game, GameResult, Phase
from engine.match import MatchState, after_game
from engine.matfile import (
    DEFAULT_BOUNDS,
    ActionKind,
    GameSetup,
    InvalidMatFileError,
    MatAction,
    MatGame,
    MatMatch,
    ReadBounds,
    Tally,
    clean_name,
    game_at_start,
    game_match_state,
)
from engine.notation import parse_move
from engine.plays import Play
from engine.position import Position

BAR_LETTER, OFF_LETTER = "y", "z"
START_COUNTS = {6: 5, 8: 3, 13: 5, 24: 2}  # each side's checkers at the start, by its own point
APPLICATION = "nardy"
# Skill marks: gnubg's BM (bad move) with 1 bad / 2 very bad, DO (doubtful); BC/DC the same for a cube action.
_SKILL = {"doubtful": ("DO", ""), "bad": ("BM", "1"), "very bad": ("BM", "2")}
_CUBE_SKILL = {"doubtful": ("DC", ""), "bad": ("BC", "1"), "very bad": ("BC", "2")}
# gnubg's default luck thresholds, in EMG (`set analysis threshold lucky 0.3`, `verylucky 0.6`).
LUCKY, VERY_LUCKY = 0.3, 0.6
# The properties read (the root's, the moves, the setup); the others are skipped unread.
READ_PROPERTIES = frozenset({"GM", "MI", "PW", "PB", "RU", "RE", "CV", "W", "B", "AE", "AW", "AB", "PL", "CP"})
# Values of one read property: AE names at most the 25 letters a-y, AW and AB one per checker (15 a side).
MAX_VALUES = 25
# Properties of one node: gnubg writes at most a dozen.
MAX_PROPERTIES = 100
_NO_VARIANTS = ("Nackgammon", "Hypergammon1", "Hypergammon2", "Hypergammon3")


class InvalidSgfError(InvalidMatFileError):
    """A .sgf text that cannot be read as a backgammon match."""


@dataclass(frozen=True)
class SgfNode:
    """One node: the line it starts on and its ``READ_PROPERTIES`` in order (name, values)."""

    line: int
    properties: tuple[tuple[str, tuple[str, ...]], ...]

    def get(self, name: str) -> Optional[tuple[str, ...]]:
        return next((values for key, values in self.properties if key == name), None)


# ---------------------------------------------------------------- the SGF grammar

# A property: its identifier and its values, ``[...]`` each, ``\]`` and ``\\`` escaped within them.
_VALUE_TEXT = r"[^\]\\]*(?:\\.[^\]\\]*)*"
_PROPERTY = re.compile(rf"([A-Za-z]+)\s*((?:\[{_VALUE_TEXT}\]\s*)*)", re.DOTALL)
_VALUE = re.compile(rf"\[({_VALUE_TEXT})\]", re.DOTALL)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _unescape(escape: re.Match) -> str:
    """An escaped character as itself; an escaped line end (a soft line break) as nothing."""
    return "" if escape[1] == "\n" else escape[1]


class _Scanner:
    """SGF's collection grammar: ``(`` nodes ``;`` with properties ``ID[value]...`` and subtrees ``)``.

    Read without recursion, counting trees (games), nodes and nesting against ``tally``'s bounds."""

    def __init__(self, text: str, source: str, tally: Tally) -> None:
        self.text, self.source, self.pos, self.line, self.tally = text, source, 0, 1, tally

    def error(self, message: str, line: Optional[int] = None) -> InvalidSgfError:
        return InvalidSgfError(f"{self.source} line {line or self.line}: {message}")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.line += self.text[self.pos] == "\n"
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            got = quote(self.text[self.pos : self.pos + 20]) if self.pos < len(self.text) else "the end"
            raise self.error(f"expected {char!r}, got {got}")
        self.pos += 1

    def node(self) -> SgfNode:
        """One node: each property matched whole by ``_PROPERTY`` (which also takes the spaces after it); a read
        one's values kept, their escapes undone."""
        self.expect(";")
        self.tally.node("SGF nodes")
        line, properties = self.line, []
        self.skip_space()
        for count in range(MAX_PROPERTIES + 1):
            found = _PROPERTY.match(self.text, self.pos)
            if found is None:
                break
            if count == MAX_PROPERTIES:
                raise self.error(f"more than {MAX_PROPERTIES} properties in a node: at most {MAX_PROPERTIES} are read")
            if self.text.startswith("[", found.end()):
                line_of_value = self.line + self.text.count("\n", self.pos, found.end())
                raise self.error("a property value '[' is never closed", line_of_value)
            name = found[1].upper()
            if not found[2]:
                raise self.error(f"property {name} has no value")
            if name in READ_PROPERTIES:
                raw = _VALUE.findall(found[2])
                if len(raw) > MAX_VALUES:
                    raise self.error(f"property {name} has {len(raw)} values: at most {MAX_VALUES} are read")
                properties.append((name, tuple(_ESCAPE.sub(_unescape, value) for value in raw)))
            self.line += self.text.count("\n", self.pos, found.end())
            self.pos = found.end()
        return SgfNode(line, tuple(properties))

    def sequence(self, into: Optional[list[SgfNode]]) -> None:
        """A tree's nodes, added to ``into`` (the main line) unless it is None (a variation, read and dropped)."""
        read = False
        while self.peek() == ";":
            node = self.node()
            read = True
            if into is not None:
                into.append(node)
        if not read:
            raise self.error("a game tree without nodes")

    def tree(self) -> list[SgfNode]:
        """The main line of one game tree: its sequence, then its first subtree's, and so on.

        The subtrees still open are a stack (whether each is on the main line, whether its first subtree
        was read), so nesting costs no recursion; it is bounded by ``tally``."""
        self.expect("(")
        nodes: list[SgfNode] = []
        self.sequence(nodes)
        open_trees = [[True, False]]  # per open tree: on the main line, its first subtree seen
        while open_trees:
            char = self.peek()
            if char == "(":
                parent = open_trees[-1]
                main = parent[0] and not parent[1]
                parent[1] = True
                self.pos += 1
                self.tally.depth(len(open_trees) + 1, f"{self.source} line {self.line}")
                open_trees.append([main, False])
                self.sequence(nodes if main else None)
            else:
                self.expect(")")
                open_trees.pop()
        return nodes

    def collection(self) -> list[list[SgfNode]]:
        trees = []
        self.skip_space()
        if self.text.startswith("\ufeff", self.pos):
            self.pos += 1
        while self.peek() == "(":
            self.tally.game()
            trees.append(self.tree())
        if self.peek():
            raise self.error(f"expected '(' to start a game tree, got {quote(self.text[self.pos : self.pos + 20])}")
        if not trees:
            raise self.error("no game tree: a GNU Backgammon .sgf starts with '(;'")
        return trees


def parse_sgf_nodes(text: str, source: str = ".sgf text", bounds: ReadBounds = DEFAULT_BOUNDS) -> list[list[SgfNode]]:
    """Every game tree's main line of nodes; a broken SGF raises InvalidSgfError naming the line, one past
    ``bounds`` (games, nodes, nesting) FileBoundError."""
    return _Scanner(text, source, Tally(bounds, source)).collection()


# ---------------------------------------------------------------- reading the game


def _point(letter: str, player: int) -> int:
    """A letter of the board frame as ``player``'s point (25 bar, 0 off), or -1."""
    if letter == BAR_LETTER:
        return 25
    if letter == OFF_LETTER:
        return 0
    if "a" <= letter <= "x":
        return ord("x") - ord(letter) + 1 if player else ord(letter) - ord("a") + 1
    return -1


def _letter(point: int, player: int) -> str:
    """``player``'s point (25 bar, 0 off) as a letter of the board frame."""
    if point == 25:
        return BAR_LETTER
    if point == 0:
        return OFF_LETTER
    return chr(ord("x") - point + 1) if player else chr(ord("a") + point - 1)


def _move(player: int, text: str, where: str) -> MatAction:
    """A move value ``52mhmk``: the dice and the checker steps, as a MatAction in the mover's numbering."""
    if not re.fullmatch(r"[1-6][1-6](?:[a-z][a-z]){0,4}", text):
        raise InvalidSgfError(
            f"{where}: cannot read the move {quote(text)} (expected dice and point letters, e.g. '52mhmk', "
            "or double, take, drop)"
        )
    steps = []
    for k in range(2, len(text), 2):
        src, dst = _point(text[k], player), _point(text[k + 1], player)
        if src <= 0 or dst < 0 or dst == 25:
            raise InvalidSgfError(f"{where}: {quote(text[k : k + 2])} in {quote(text)} is not a checker step")
        steps.append(f"{src}/{dst}")
    return MatAction.of_move(player, (int(text[0]), int(text[1])), " ".join(steps))


def _letters(values: tuple[str, ...], where: str) -> list[int]:
    """The letter indices (0 = 'a' .. 24 = 'y') of a point list, ``a:y`` ranges included, one per value."""
    found = []
    for value in values:
        if re.fullmatch(r"[a-y]", value):
            found.append(ord(value) - ord("a"))
        elif re.fullmatch(r"[a-y]:[a-y]", value) and value[0] <= value[2]:
            found += range(ord(value[0]) - ord("a"), ord(value[2]) - ord("a") + 1)
        else:
            raise InvalidSgfError(
                f"{where}: cannot read the point {quote(value)} (expected a letter a-y or a range a:y)"
            )
    return found


class _GameBuilder:
    """Collects one game tree's actions and setup."""

    def __init__(self, source: str, tally: Tally) -> None:
        self.source, self.tally = source, tally
        self.actions: list[MatAction] = []
        # Checkers per point of each player in its own numbering (index 25 = bar); None until a setup node.
        self.counts: Optional[list[list[int]]] = None
        self.turn: Optional[int] = None
        self.cube = 1
        self.cube_owner: Optional[int] = None
        self.cube_set = False
        self.setup_line: Optional[int] = None  # the first setup node's

    def _setup_counts(self) -> list[list[int]]:
        if self.counts is None:
            start = [0] * 26
            for point, n in START_COUNTS.items():
                start[point] = n
            self.counts = [list(start), list(start)]
        return self.counts

    def node(self, node: SgfNode) -> None:
        where = f"{self.source} line {node.line}"
        moved = False
        for name, values in node.properties:
            value = values[0]
            if name in ("W", "B"):
                if moved:
                    continue  # gnubg ignores a second move in a node
                moved = True
                self.tally.action()
                player = int(name == "B")
                kind = value.strip().lower()
                if kind == "double":
                    cube = 2 * self._cube_now()
                    self.actions.append(MatAction.of_double(player, cube))
                elif kind in ("take", "drop"):
                    self.actions.append(MatAction.of_take(player) if kind == "take" else MatAction.of_drop(player))
                else:
                    self.actions.append(_move(player, value.strip(), where))
            elif name in ("AE", "AW", "AB", "PL", "CV", "CP"):
                if self.actions:
                    raise InvalidSgfError(
                        f"{where}: {name} changes the position after the game's first action "
                        "(only a setup before it is read)"
                    )
                self._setup(name, values, where)
                self.setup_line = self.setup_line or node.line

    def _cube_now(self) -> int:
        """The cube value before a double recorded now (the setup's, doubled by each take)."""
        cube = self.cube
        for action in self.actions:
            if action.kind is ActionKind.DOUBLE:
                cube = action.cube
        return cube

    def _setup(self, name: str, values: tuple[str, ...], where: str) -> None:
        if name == "PL":
            if values[0] not in ("W", "B"):
                raise InvalidSgfError(f"{where}: PL[{values[0]}]: expected W or B")
            self.turn = int(values[0] == "B")
        elif name == "CV":
            if not re.fullmatch(r"\d{1,5}", values[0]) or int(values[0]) & (int(values[0]) - 1) or int(values[0]) < 1:
                raise InvalidSgfError(f"{where}: CV[{quote(values[0])}]: the cube is a power of 2")
            self.cube, self.cube_set = int(values[0]), True
        elif name == "CP":
            owners = {"c": None, "w": 0, "b": 1}
            if values[0] not in owners:
                raise InvalidSgfError(f"{where}: CP[{quote(values[0])}]: expected c, w or b")
            self.cube_owner, self.cube_set = owners[values[0]], True
        else:
            counts = self._setup_counts()
            for index in _letters(values, where):
                w_point = 25 if index == 24 else index + 1  # player 0's point at this letter
                b_point = 25 if index == 24 else 24 - index
                if name == "AE":
                    counts[0][w_point] = counts[1][b_point] = 0
                else:
                    counts[int(name == "AB")][b_point if name == "AB" else w_point] += 1

    def game(
        self, score: tuple[int, int], winner: Optional[int], points: int, root: SgfNode, crawford: Optional[bool]
    ) -> MatGame:
        setup = None
        if self.counts is not None or self.cube_set or self.turn is not None:
            # As gnubg's loader: the first action's player is on roll (gnubg itself writes PL[W] back for a
            # set-up position whoever is on roll); PL counts only when no action follows.
            if self.actions:
                first = self.actions[0]
                turn = 1 - first.player if first.kind in (ActionKind.TAKE, ActionKind.DROP) else first.player
            else:
                turn = self.turn or 0
            setup = self._game_setup(turn, root)
        try:
            return MatGame(score, tuple(self.actions), winner, points, setup, crawford)
        except InvalidMatFileError as error:
            raise InvalidSgfError(f"{self.source} line {root.line}: {error}") from None

    def _game_setup(self, turn: int, root: SgfNode) -> GameSetup:
        where = f"{self.source} line {self.setup_line or root.line}"
        counts = self._setup_counts()
        mine, theirs = counts[turn], counts[1 - turn]
        board = np.zeros(26, dtype=np.int64)
        board[1:25] = mine[1:25]
        board[1:25] -= np.array(theirs[1:25][::-1])
        board[25], board[0] = mine[25], -theirs[25]
        if any(mine[p] and theirs[25 - p] for p in range(1, 25)):
            raise InvalidSgfError(f"{where}: the setup puts both players' checkers on one point")
        if (self.cube == 1) != (self.cube_owner is None):
            raise InvalidSgfError(
                f"{where}: the setup's cube {self.cube} "
                f"{'is centred' if self.cube_owner is None else 'is owned'}: a centred cube is on 1"
            )
        try:
            position = Position(board.astype(np.int8))
        except BackgammonError as error:
            raise InvalidSgfError(f"{where}: the setup: {error}") from None
        return GameSetup(position, turn, self.cube, self.cube_owner)


def _root_info(root: SgfNode, where: str) -> dict:
    """The root node's match length, scores, names, rules and result."""
    gm = root.get("GM")
    if gm is not None and gm[0].strip() != "6":
        raise InvalidSgfError(f"{where}: GM[{quote(gm[0])}] is not backgammon (GM[6])")
    info: dict = {"length": None, "score": None, "names": (None, None), "rules": set(), "winner": None, "points": 0}
    mi = root.get("MI") or ()
    score: list[Optional[int]] = [None, None]
    for item in mi:
        key, _, value = item.partition(":")
        if key in ("length", "game", "ws", "bs"):
            if not re.fullmatch(r"\d{1,6}", value.strip()):
                raise InvalidSgfError(f"{where}: MI[{quote(item)}]: expected a whole number")
            number = int(value)
            if key == "length":
                info["length"] = number
            elif key in ("ws", "bs"):
                score[int(key == "bs")] = number
    if score[0] is not None or score[1] is not None:
        info["score"] = (score[0] or 0, score[1] or 0)
    info["names"] = tuple(_name(root.get(key)) for key in ("PW", "PB"))
    if (rules := root.get("RU")) is not None:
        info["rules"] = set(rules[0].split(":")) - {""}
    if (cv := root.get("CV")) is not None and cv[0].strip() not in ("", "1"):
        raise InvalidSgfError(f"{where}: CV[{quote(cv[0])}]: automatic doubles are not supported")
    if (re_ := root.get("RE")) is not None:
        result = re.fullmatch(r"([WB])\+(\d{1,6})R?", re_[0].strip().upper())
        if result is None:
            raise InvalidSgfError(f"{where}: RE[{quote(re_[0])}]: expected e.g. W+2 or B+1R")
        info["winner"], info["points"] = int(result[1] == "B"), max(1, int(result[2]))
    return info


def _name(values: Optional[tuple[str, ...]]) -> Optional[str]:
    """A player's name as ``MatMatch`` and every output allow it (``clean_name``), or None when there is none."""
    return (clean_name(values[0]) or None) if values else None


def parse_sgf(text: str, source: str = ".sgf text", bounds: ReadBounds = DEFAULT_BOUNDS) -> MatMatch:
    """The match (or money session, or single game) in a GNU Backgammon .sgf text.

    Raise InvalidSgfError naming ``source`` and the line: a broken SGF, a game that is not
    backgammon, a move that cannot be read, rules the engine does not play (variants, no cube,
    automatic doubles, a match without the Crawford rule), games of differing match lengths; raise
    ``engine.matfile.FileBoundError`` past ``bounds`` (games, actions, nodes, nested variations).
    The moves are checked against the rules later, as a .mat file's are (``engine.matfile.replay_game``).
    """
    games: list[MatGame] = []
    length: Optional[int] = None
    names: list[Optional[str]] = [None, None]
    jacoby = False
    state: Optional[MatchState] = None
    tally = Tally(bounds, source)
    for nodes in _Scanner(text, source, tally).collection():
        root = nodes[0]
        where = f"{source} line {root.line}"
        info = _root_info(root, where)
        game_length = info["length"] or 0
        if length is None:
            length = game_length
            state = MatchState(match_length=length)
        elif game_length != length:
            raise InvalidSgfError(f"{where}: a {game_length}-point game in a {length}-point match")
        assert state is not None
        rules = info["rules"]
        if unsupported := rules & (set(_NO_VARIANTS) | {"NoCube"}):
            raise InvalidSgfError(
                f"{where}: RU[{':'.join(sorted(unsupported))}]: only standard backgammon with a cube is read"
            )
        if length > 1 and "Crawford" not in rules:
            raise InvalidSgfError(f"{where}: a match without the Crawford rule (RU[Crawford]) is not supported")
        jacoby = jacoby or (not length and "Jacoby" in rules)
        for k in (0, 1):
            names[k] = names[k] or info["names"][k]
        score = info["score"] if info["score"] is not None else state.score
        builder = _GameBuilder(source, tally)
        for node in nodes[1:]:
            builder.node(node)
        crawford = "CrawfordGame" in rules if length > 1 and length - 1 in score else None
        games.append(builder.game(score, info["winner"], info["points"], root, crawford))
        state = replace(state, score=score) if length else state
        if info["winner"] is not None and length and not state.is_over:
            state = after_game(state, info["winner"], info["points"])
    assert length is not None, "parse_sgf_nodes returns at least one tree"
    players = (names[0] or "White", names[1] or "Black")
    if players[0] == players[1]:
        players = (players[0] + " (white)", players[1] + " (black)")
    return MatMatch(length, players, tuple(games), jacoby)


def read_sgf(path: str | os.PathLike) -> MatMatch:
    """The match in the .sgf file at ``path`` (``engine.matchfiles.read_records_file`` also bounds its size)."""
    with open(path, encoding="utf-8") as f:
        return parse_sgf(f.read(), source=str(path))


# ---------------------------------------------------------------- writing


@dataclass(frozen=True)
class SgfNote:
    """What an analysis says of one recorded action, in gnubg's own properties.

    ``skill``: 'doubtful', 'bad' or 'very bad' for the action itself (a play, a double, a take
    or drop); ``cube_skill``: the same for the cube decision before a move's roll (a missed
    double); ``luck``: the roll's luck in EMG, the mover's view; ``comment``: free text.
    """

    skill: Optional[str] = None
    cube_skill: Optional[str] = None
    luck: Optional[float] = None
    comment: str = ""


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _recorded_plays(game: MatGame, match: MatchState) -> Iterator[tuple[MatAction, Optional[Play], bool]]:
    """Each action with its play (for moves) and whether the game ends with it; stops at an illegal action."""
    if not game.actions:
        return
    state: Game | GameResult = game_at_start(game, match)
    for action in game.actions:
        if isinstance(state, GameResult):
            return
        play = None
        try:
            if action.kind is ActionKind.MOVE:
                assert action.dice is not None
                if state.phase is Phase.BEFORE_ROLL:
                    state = state.roll(action.dice)
                play = parse_move(action.move, state.board, action.dice)
                state = state.move(play)
            elif action.kind is ActionKind.DOUBLE:
                state = state.double()
            else:
                state = state.take() if action.kind is ActionKind.TAKE else state.drop()
        except BackgammonError:
            return
        yield action, play, isinstance(state, GameResult)


def _setup_nodes(setup: GameSetup) -> list[str]:
    """A set-up position as gnubg writes it: PL, AE[a:y], AW and AB in the board frame, then the cube."""
    board = setup.position.board
    counts = {
        setup.turn: {p: int(board[p]) for p in range(1, 26) if board[p] > 0},
        1 - setup.turn: {25 - p: -int(board[p]) for p in range(1, 25) if board[p] < 0},
    }
    if board[0]:
        counts[1 - setup.turn][25] = -int(board[0])
    node = f";PL[{'WB'[setup.turn]}]AE[a:y]"
    for player, name in ((0, "AW"), (1, "AB")):
        letters = "".join(f"[{_letter(p, player)}]" * n for p, n in sorted(counts[player].items()))
        if letters:
            node += name + letters
    nodes = [node]
    if setup.cube != 1:
        nodes += [f";CV[{setup.cube}]", f";CP[{'wb'[setup.cube_owner or 0]}]"]
    return nodes


def _note_properties(note: Optional[SgfNote], player: int, is_move: bool) -> str:
    if note is None:
        return ""
    text = ""
    if is_move and note.luck is not None:
        text += f"LU[{note.luck:.5f}]"
        size = abs(note.luck)
        if size >= LUCKY:
            side = "WB"[player] if note.luck > 0 else "BW"[player]  # GW: good for white (player 0), GB for black
            text += f"G{side}[{2 if size >= VERY_LUCKY else 1}]"
    if note.skill in _SKILL:
        name, value = _SKILL[note.skill]
        text += f"{name}[{value}]"
    if is_move and note.cube_skill in _CUBE_SKILL:
        name, value = _CUBE_SKILL[note.cube_skill]
        text += f"{name}[{value}]"
    if note.comment:
        text += f"C[{_escape(note.comment)}]"
    return text


def format_sgf(match: MatMatch, notes: Mapping[tuple[int, int], SgfNote] | None = None) -> str:
    """``match`` as GNU Backgammon writes a .sgf (one game tree per game), which its ``load match`` reads.

    ``notes``: per (game index, action index), both from 0, what an analysis says of the action.
    A game's actions are written up to the first one that breaks the rules (the rest cannot be
    turned into gnubg's point letters).
    """
    notes = notes or {}
    out = []
    state = MatchState(match_length=match.length, jacoby=match.jacoby and not match.length)
    for index, game in enumerate(match.games):
        state = game_match_state(game, state)
        rules = []
        if match.length > 1:
            rules.append("Crawford")
            if state.crawford:
                rules.append("CrawfordGame")
        if state.jacoby:
            rules.append("Jacoby")
        head = (
            f"(;FF[4]GM[6]CA[UTF-8]AP[{APPLICATION}]MI[length:{match.length}][game:{index}]"
            f"[ws:{game.score[0]}][bs:{game.score[1]}]PW[{_escape(match.players[0])}]PB[{_escape(match.players[1])}]"
        )
        if rules:
            head += f"RU[{':'.join(rules)}]"
        nodes = _setup_nodes(game.setup) if game.setup is not None else []
        ended = False
        for k, (action, play, ended) in enumerate(_recorded_plays(game, state)):
            player = action.player
            if action.kind is ActionKind.MOVE:
                assert action.dice is not None and play is not None
                steps = "".join(_letter(s.src, player) + _letter(s.dst, player) for s in play.steps)
                node = f";{'WB'[player]}[{action.dice[0]}{action.dice[1]}{steps}]"
            else:
                node = f";{'WB'[player]}[{action.kind.value}]"
            nodes.append(node + _note_properties(notes.get((index, k)), player, action.kind is ActionKind.MOVE))
        if game.winner is not None:
            head += f"RE[{'WB'[game.winner]}+{game.points}{'' if ended else 'R'}]"
        out.append(head + "".join("\n" + n for n in nodes) + ")\n")
        if game.winner is not None and match.length and not state.is_over:
            state = after_game(state, game.winner, game.points)
    return "".join(out)


def write_sgf(match: MatMatch, path: str | os.PathLike, notes: Mapping[tuple[int, int], SgfNote] | None = None) -> None:
    """Write ``match`` to ``path`` as a GNU Backgammon .sgf file."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(format_sgf(match, notes))
