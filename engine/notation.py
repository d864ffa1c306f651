"""Move notation as GNU Backgammon prints it, and reading typed moves back.

Points are in the mover's numbering (24 -> 1), ``bar`` = 25, ``off`` = 0.
``format_play`` follows GNU Backgammon's ``FormatMove``: steps sorted by
source point (highest first), the steps of one checker joined into one
segment (an intermediate point is kept only where it hits: ``13/7*/5``),
identical segments counted (``8/5(2)``), ``*`` on a hit written once per point.

``parse_move`` reads gnubg/XG notation and every step written out (``13/7/5``,
``13/7 7/5``, ``bar/22*``, ``25/22``, ``6/off``, ``6/0``, ``8/5(2)``, ``13-7``)
and resolves it to the legal play with the same result. A ``*`` is optional (a
checker landing on a blot hits it), as in GNU Backgammon.

A typed play is judged by the position it reaches, not by the path written: the
steps in any order of the dice (``8/2 13/8``), through either intermediate point
(``13/8/2`` or ``13/7/2`` for ``13/2``), checker by checker or a checker the whole
way at once, are the same play. A checker written the whole way past a blot is read
as GNU Backgammon reads it: the path that hits only where it lands, when that is a
legal play; else the one legal play that hits on the way (when several hit different
blots, the move is ambiguous and the error asks for the point hit). The web board's
checker entry follows the same rule (``bot/doors/web/entry.js``, docs/web_board.md).

>>> from engine.board import START
>>> format_play(parse_move("13/7 13/7 8/2 8/2", START, "66"))
'13/7(2) 8/2(2)'
>>> format_play(parse_move("13/7/5", START, "62"))
'13/5'
"""

from __future__ import annotations

import re
from collections import Counter
import numpy as np

from engine.board import validate_board, validate_dice
from engine.errors import IllegalMoveError, InvalidMoveError, quote
from engine.plays import BAR, OFF, Play, legal_plays, partial_plays

# ASCII digits only: int() would read '٣' as 3, and str.isdigit() accepts '²', which int() refuses.
_POINT = r"(?:bar|off|[0-9]{1,2})"
_SEGMENT = re.compile(rf"{_POINT}\*?(?:[/-]{_POINT}\*?)+(?:\(([0-9])\))?", re.IGNORECASE | re.ASCII)
_POINT_AND_STAR = re.compile(rf"({_POINT})(\*?)", re.IGNORECASE | re.ASCII)


def _point_name(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


def format_play(play: Play) -> str:
    """The play in GNU Backgammon's notation (mover's numbering); '' for no move."""
    hit_points = {s.dst for s in play.steps if s.hit}
    # One path per step, highest source (then destination) first, as gnubg sorts them.
    paths = [[s.src, s.dst] for s in sorted(play.steps, key=lambda s: (s.src, s.dst), reverse=True)]
    alive = [True] * len(paths)
    for i in range(len(paths)):
        for j in range(i + 1, len(paths)):
            if alive[i] and alive[j] and paths[i][-1] == paths[j][0]:
                if paths[i][-1] in hit_points:
                    paths[i].append(paths[j][-1])  # hit on the way: keep the intermediate point
                else:
                    paths[i][-1] = paths[j][-1]
                alive[j] = False
    counted: list[tuple[list[int], int]] = []
    for path in (p for p, a in zip(paths, alive) if a):
        for k, (other, n) in enumerate(counted):
            if other == path:
                counted[k] = (other, n + 1)
                break
        else:
            counted.append((path, 1))
    starred: set[int] = set()
    segments = []
    for path, n in counted:
        text = _point_name(path[0])
        for point in path[1:-1]:
            text += f"/{_point_name(point)}*"
            starred.add(point)
        dest = path[-1]
        text += f"/{_point_name(dest)}"
        if dest in hit_points and dest not in starred:
            text += "*"
            starred.add(dest)
        segments.append(text + (f"({n})" if n > 1 else ""))
    return " ".join(segments)


def format_steps(play: Play) -> str:
    """Every checker step of the play as its own ``from/to``, highest source first; '' for no move.

    No ``*`` and no ``(2)``: engine protocols (UBGI) want one plain pair per die, in an order
    that can be applied step by step (a checker moved twice reads ``24/18 18/13``).

    >>> from engine.board import START
    >>> format_steps(parse_move("13/7(2) 8/2(2)", START, "66"))
    '13/7 13/7 8/2 8/2'
    """
    steps = sorted(play.steps, key=lambda s: (s.src, s.dst), reverse=True)
    return " ".join(f"{_point_name(s.src)}/{_point_name(s.dst)}" for s in steps)


class TypedMove:
    """Move text read into checker paths (each a list of points, highest first) and starred points.

    The syntax of both games (``engine.long_nardy.notation`` refuses what long nardy lacks);
    InvalidMoveError naming the text when it cannot be read. Not yet checked against a position.

    >>> typed = TypedMove("13/7*/5 6/5")
    >>> typed.paths, sorted(typed.starred), dict(typed.net())
    ([[13, 7, 5], [6, 5]], [7], {13: -1, 5: 2, 6: -1})
    """

    def __init__(self, text: str):
        self.text = text
        self.paths: list[list[int]] = []
        self.starred: set[int] = set()
        for token in re.sub(r"\s*([/-])\s*", r"\1", text.replace(",", " ")).split():
            match = _SEGMENT.fullmatch(token)
            if not match:
                raise InvalidMoveError(
                    f"move {quote(text)}: cannot read {quote(token, 30)} (expected e.g. '13/7', 'bar/22*', '6/off')"
                )
            count = int(match.group(1) or 1)
            if not 1 <= count <= 4:
                raise InvalidMoveError(f"move {quote(text)}: count ({count}) in {quote(token, 30)} must be 1..4")
            body = token.split("(")[0]
            path = []
            for name, star in _POINT_AND_STAR.findall(body):
                point = {"bar": BAR, "off": OFF}[name.lower()] if name.isalpha() else int(name)
                if point > BAR:
                    raise InvalidMoveError(f"move {quote(text)}: point {point} out of range (1..24, bar = 25, off = 0)")
                if star:
                    self.starred.add(point)
                path.append(point)
            if path[0] == OFF:
                raise InvalidMoveError(f"move {quote(text)}: {quote(token, 30)} moves a checker from off the board")
            if BAR in path[1:]:
                raise InvalidMoveError(f"move {quote(text)}: {quote(token, 30)} moves a checker to the bar")
            if any(a <= b for a, b in zip(path, path[1:])):
                raise InvalidMoveError(
                    f"move {quote(text)}: in {quote(token, 30)} checkers must move from higher to lower points"
                )
            self.paths.extend([path] * count)
        if len(self.paths) > 4:
            raise InvalidMoveError(f"move {quote(text)}: more than four checker moves")

    def hops(self) -> list[tuple[int, int]]:
        """Every (from, to) written, a path 13/7/5 giving 13/7 and 7/5."""
        return [(a, b) for path in self.paths for a, b in zip(path, path[1:])]

    def net(self) -> Counter:
        """Change of the mover's checker count per point (0 = borne off)."""
        change: Counter = Counter()
        for path in self.paths:
            change[path[0]] -= 1
            change[path[-1]] += 1
        return Counter({k: v for k, v in change.items() if v})

    def landings(self) -> set[int]:
        """Points the written move lands on or passes through as written (not off)."""
        return {p for path in self.paths for p in path[1:] if p != OFF}


def net_change(play: Play) -> Counter:
    """Change of the mover's checker count per point (0 = borne off) made by a play: compared with
    ``TypedMove.net`` to find the play a text means, whatever path it writes."""
    change: dict[int, int] = {}
    for src, dst, _ in play.steps:
        change[src] = change.get(src, 0) - 1
        change[dst] = change.get(dst, 0) + 1
    return Counter({k: v for k, v in change.items() if v})


def _matching(board: np.ndarray, typed: TypedMove, plays: list[Play]) -> list[Play]:
    """The plays with the typed result: same checkers moved, a hit on every blot landed on.

    Among several (hits on points the text does not name), those hitting only named
    points are preferred.
    """
    mover = np.maximum(board[1:], 0).astype(np.int64)  # the mover's checkers, points 1..24 and the bar (25)
    for point, change in typed.net().items():
        if point != OFF:
            mover[point - 1] += change
    afters = np.stack([play.afterstate for play in plays])
    same = (np.maximum(afters[:, 1:], 0) == mover).all(axis=1)  # same checkers moved, so the same borne off
    required = {p for p in typed.landings() if board[p] == -1}
    found = []
    for k in np.flatnonzero(same):
        hits = {s.dst for s in plays[k].steps if s.hit}
        if required <= hits:
            found.append((plays[k], hits))
    exact = [play for play, hits in found if hits == required]
    return exact or [play for play, _ in found]


def _dice_fit(hops: list[tuple[int, int]], dice: list[int]) -> bool:
    """Whether the hops can be made with disjoint groups of the dice (bear-off may overshoot)."""
    if not hops:
        return True
    (src, dst), rest = hops[0], hops[1:]
    distance = src - dst
    n = len(dice)
    for mask in range(1, 1 << n):
        chosen = [dice[i] for i in range(n) if mask >> i & 1]
        total = sum(chosen)
        if total == distance or (dst == OFF and total > distance and total - max(chosen) < distance):
            if _dice_fit(rest, [dice[i] for i in range(n) if not mask >> i & 1]):
                return True
    return False


def _why_illegal(board: np.ndarray, typed: TypedMove, d1: int, d2: int, most: int) -> str:
    """The first reason found why a well-formed move is not a legal play."""
    roll = f"{d1}{d2}"
    partial = _matching(board, typed, partial_plays(board, (d1, d2)))
    if partial:
        if partial[0].dice_used == most:
            return f"the larger die ({max(d1, d2)}) must be played"
        if most == 2 and d1 != d2:
            return "both dice must be played"
        return f"{most} dice must be played, this move plays {partial[0].dice_used}"
    sources = [path[0] for path in typed.paths]
    if board[BAR] > 0 and any(src != BAR for src in sources) and sources.count(BAR) < board[BAR]:
        return "must enter from the bar first"
    arrivals = Counter(path[-1] for path in typed.paths)
    for src, leaving in Counter(sources).items():
        if leaving > max(int(board[src]), 0) + arrivals[src]:
            return (
                f"no checker on {_point_name(src)}" if leaving == 1 else f"not {leaving} checkers on {_point_name(src)}"
            )
    for point in sorted(typed.landings(), reverse=True):
        if board[point] <= -2:
            return f"point {point} is blocked"
    hops = typed.hops()
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    if not _dice_fit(hops, dice):
        return f"the roll {roll} does not make these moves"
    after = board.astype(int)
    for point, n in typed.net().items():
        if point != OFF:
            after[point] += n
    if OFF in typed.net() and (after[BAR] > 0 or np.any(after[7:25] > 0)):
        return "cannot bear off: checkers outside the home board"
    for src, dst in hops:
        if dst == OFF or src - dst in (d1, d2):
            continue
        if d1 == d2:
            routes = [[src - d1 * k for k in range(1, (src - dst) // d1)]]
        else:
            routes = [[src - d1], [src - d2]]
        blocked = sorted({p for route in routes for p in route if board[p] <= -2}, reverse=True)
        if all(any(board[p] <= -2 for p in route) for route in routes):
            names = " and ".join(str(p) for p in blocked)
            return f"point{'s' if len(blocked) > 1 else ''} {names} {'are' if len(blocked) > 1 else 'is'} blocked"
    return f"not a legal play of {roll}"


def parse_move(text: str, board: np.ndarray, dice) -> Play:
    """The legal play of ``dice`` on ``board`` (mover's view) that ``text`` describes.

    Raise InvalidMoveError when the text cannot be read, IllegalMoveError (with
    the reason) when it reads but is not a legal play. An empty text is the
    play of a roll that cannot be played.
    """
    d1, d2 = validate_dice(dice)
    board = validate_board(board)
    if not isinstance(text, str):
        raise InvalidMoveError(f"move {quote(text)}: expected text")
    typed = TypedMove(text)
    plays = legal_plays(board, (d1, d2))
    if not typed.paths:
        if plays[0].steps:
            raise IllegalMoveError(f"move {quote(text)}: no move given, but {d1}{d2} can be played")
        return plays[0]
    if plays[0].steps:
        found = _matching(board, typed, plays)
        if len(found) == 1:
            return found[0]
        if found:
            options = " or ".join(format_play(p) for p in found)
            raise IllegalMoveError(f"move {quote(text)} is ambiguous: {options}; write the point hit on the way")
    most = plays[0].dice_used
    if most == 0:
        raise IllegalMoveError(f"move {quote(text)}: {d1}{d2} cannot be played in this position")
    raise IllegalMoveError(f"move {quote(text)}: {_why_illegal(board, typed, d1, d2, most)}")
