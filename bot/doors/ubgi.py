"""UBGI, the Universal Backgammon Interface: ``nardy ubgi``, an engine that a controller drives on stdin/stdout.

The protocol is bgci's ``docs/ubgi-v0.2-spec.md`` (bungogood/bgci; GNU Backgammon's fork
bungogood/gnubg-ubgi speaks it too), with its v0.1 draft's session commands, ``go`` limits and
``eval`` line (v0.2 keeps v0.1's forms for migration). One command a line, answers flushed a
line at a time:

- handshake: ``ubgi`` -> ``id name|author|version ...``, ``proto 0.2``, the ``key`` lines,
  v0.1's ``option`` lines, ``ubgiok``; ``isready`` -> ``readyok``; ``quit``;
- options: ``keys`` (one ``key <name> <type> <default> [!] <description>`` line each),
  ``get <key>`` -> ``value <key> <value>``, ``set <key> <value>`` (silent when it works);
  v0.1's ``setoption name <name> value <value>`` is read as ``set``, with v0.1's option names
  (``Variant``, ``Seed``, ``Deterministic``, ``Threads``, ``EvalMode``, and gnubg-ubgi's ``Ply``)
  read as the keys they stand for (``V01_OPTIONS``);
- context: ``newgame``; ``newsession type <money|match> [length N] [jacoby on|off]
  [crawford on|off] [beavers on|off]``; ``setscore <p0> <p1>``; ``setcube value <N> owner
  <center|p0|p1>``; ``setturn <p0|p1>``; ``position gnubgid <PositionID[:MatchID]>``;
  ``position xgid <XGID>``; ``dice <d1> <d2>``;
- decisions: ``go [chequer|cube|turn]`` (or v0.1's ``go role <role>``) with optional limits
  ``depth <n>`` and ``movetime <ms>`` -> ``info ...`` lines per finished depth, an
  ``eval ...`` line, then ``bestmove <from/to ...|pass>``, ``bestcube <double|nodouble>`` or
  ``bestturn cube=<double|nodouble> move=<from/to ...|pass>``; ``stop`` ends a search early
  with the deepest answer found (``serve`` searches on a thread, so ``stop``, ``isready`` and
  ``quit`` are read while it runs).

Bad input gets ``error <code> <detail>`` with the spec's four codes (``bad_command``,
``bad_value``, ``bad_state``, ``unsupported``) and the engine reads on. Seats: ``p0``/``p1``
are GNU Backgammon's players 0 and 1 (an XGID's bottom and top); ``setturn`` names the one
on roll, whose view every Position ID is in. A ``PositionID:MatchID`` or an XGID carries its
own score, cube, turn and dice, which replace the session's. ``engine.ply`` counts as GNU
Backgammon and gnubg-ubgi do (0 = static evaluation: every play evaluated, no lookahead, the
bot's 0-ply); ``engine.depth``, ``go depth`` and the ``info`` lines count the root too (depth 1 =
``engine.ply`` 0).

``game.variant`` is ``backgammon`` or ``long_nardy`` (any of ``engine.variant.find_variant``'s
spellings), each game with its own bot and ``engine.checkpoint``; a change forgets the position
and dice. The spec names no long nardy, so this is an extension: in long nardy ``position
gnubgid`` reads long nardy's Position ID (GNU's layout without the bar) with the session's
score, cube and turn, and a position of the other game is refused naming that game.

>>> engine = UbgiEngine(Bot.load(), emit=print)  # doctest: +SKIP
>>> for line in ("position gnubgid 4HPwATDgc/ABMA", "dice 3 1", "go"):  # doctest: +SKIP
...     engine.run_now(line)
bestmove 8/5 6/5
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import IO, Callable, Iterator, Optional, Union

import numpy as np

from bot.search.cancel import Cancelled, cancel_on
from bot.evaluation.checkpoint import CheckpointError
from bot.equity.cube import CubeState, Owner, cube_state_for
from bot.doors.bounds import MAX_MATCH_LENGTH, MAX_SEED
from bot.facade import PLIES, Bot, check_game_on
from bot.play.levels import LEVEL_NAMES, Level, LevelPlayer, level_named
from engine.board import read_int, validate_dice
from engine.errors import BackgammonError, InvalidOptionError, quote
from engine.match import MAX_CUBE, MatchState, is_cube_value
from engine.notation import format_steps
from engine.position_formats import PositionSetup, read_position
from engine.variant import BACKGAMMON, NAMES, Variant, find_variant

PROTOCOL_VERSION = "0.2"
ENGINE_NAME = "nardy"
ENGINE_AUTHOR = "the nardy authors"
# The longest command read; a controller's longest (an XGID, a checkpoint path) is far shorter.
MAX_LINE = 4096
# Root-inclusive depths (engine.depth, go depth, info lines): depth d is the bot's (d - 1)-ply search.
DEPTHS = tuple(p + 1 for p in PLIES)
# The games game.variant may name, as it names them (any alias of ``engine.variant.find_variant`` is read too).
VARIANTS = NAMES
# engine.threads' range: a controller may ask for threads; the search runs on one.
MAX_THREADS = 64
MAX_MOVETIME_MS = 3_600_000
SHIPPED = "default"  # engine.checkpoint's value for the shipped network
NO_LEVEL = "none"

BAD_COMMAND, BAD_VALUE, BAD_STATE, UNSUPPORTED = "bad_command", "bad_value", "bad_state", "unsupported"
ROLES = ("chequer", "cube", "turn")
LIMITS = ("depth", "movetime", "nodes", "trials")  # v0.1's; nodes and trials are unsupported

log = logging.getLogger(__name__)


class UbgiError(Exception):
    """A command that gets ``error <code> <detail>`` instead of an answer."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code

    @property
    def line(self) -> str:
        return f"error {self.code} {' '.join(str(self).split())}"


@dataclass(frozen=True)
class Key:
    """One typed option as ``keys`` announces it; ``parse`` turns a value's text into its canonical text."""

    name: str
    kind: str  # int, bool, enum or string
    default: str
    description: str
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    minor: bool = False  # the spec's ``!``: not part of the engine's identity for ratings

    @property
    def line(self) -> str:
        spec = {
            "int": f"int {self.low}..{self.high}",
            "bool": "bool",
            "string": "string *",
            "enum": "enum " + "|".join(self.choices),
        }[self.kind]
        return " ".join(["key", self.name, spec, self.default] + ["!"] * self.minor + [self.description])

    def parse(self, text: str) -> str:
        if self.kind == "int":
            try:
                return str(read_int(text, "value", self.name, self.low, self.high, error=InvalidOptionError))
            except InvalidOptionError:
                raise self._refusal(f"{self.low}..{self.high}", text) from None
        if self.kind == "bool" and text not in ("true", "false"):
            raise self._refusal("true|false", text)
        if self.kind == "enum" and text not in self.choices:
            raise self._refusal("|".join(self.choices), text)
        return text

    def _refusal(self, allowed: str, text: str) -> UbgiError:
        return UbgiError(BAD_VALUE, f"{self.name} must_be {allowed}, not {quote(text)}")

    def option_line(self, name: str) -> str:
        """The v0.1 handshake's ``option name <name> type ...`` line announcing this key as ``name``."""
        kind = {"int": "spin", "bool": "check", "enum": "combo", "string": "string"}[self.kind]
        tail = {
            "int": f" min {self.low} max {self.high}",
            "enum": "".join(f" var {choice}" for choice in self.choices),
        }.get(self.kind, "")
        return f"option name {name} type {kind} default {self.default}{tail}"


KEYS: dict[str, Key] = {
    key.name: key
    for key in (
        Key(
            "engine.ply",
            "int",
            "0",
            "decision depth as GNU Backgammon counts it (0: static evaluation of every play, no lookahead)",
            low=PLIES[0],
            high=PLIES[-1],
        ),
        Key(
            "engine.depth",
            "int",
            "1",
            "root-inclusive decision depth, engine.ply + 1 (1: static evaluation of every play)",
            low=DEPTHS[0],
            high=DEPTHS[-1],
        ),
        Key(
            "engine.level",
            "enum",
            NO_LEVEL,
            "playing level, GNU Backgammon's: its depth and noise replace engine.ply",
            choices=(NO_LEVEL,) + LEVEL_NAMES,
        ),
        Key("engine.deterministic", "bool", "true", "a level's noise drawn from the position, else from engine.seed"),
        Key("engine.seed", "int", "0", "seed of a non-deterministic level's noise", low=0, high=MAX_SEED, minor=True),
        Key("engine.checkpoint", "string", SHIPPED, "network checkpoint file (default: the shipped bot)"),
        Key("engine.info", "bool", "true", "info and eval lines before each answer", minor=True),
        Key(
            "engine.eval_mode",
            "enum",
            "cubeful",
            "cubeless: plays ranked by cubeless money equity, the score and cube set aside",
            choices=("cubeful", "cubeless"),
        ),
        Key(
            "engine.threads",
            "int",
            "1",
            "threads a controller may ask for; the search runs on one",
            low=1,
            high=MAX_THREADS,
            minor=True,
        ),
        Key("game.variant", "enum", VARIANTS[0], "the game played", choices=VARIANTS),
    )
}
# v0.1's option names (gnubg-ubgi's spelling; matched in any case) and the keys they stand for.
V01_OPTIONS = {
    "Variant": "game.variant",
    "Seed": "engine.seed",
    "Deterministic": "engine.deterministic",
    "Threads": "engine.threads",
    "EvalMode": "engine.eval_mode",
    "Ply": "engine.ply",
}
_V01_KEYS = {name.lower(): key for name, key in V01_OPTIONS.items()}


@dataclass
class Context:
    """The game around the position: session kind and rules, score and cube by seat, the seat on roll.

    ``crawford``: a game in which exactly one side is one point from the match is the Crawford
    game (else post-Crawford).
    """

    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    cube: int = 1
    owner: Optional[int] = None  # seat owning the cube; None: centred
    turn: int = 0
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False

    def cube_state(self) -> CubeState:
        """The cube and score seen by the side on roll; raise BackgammonError when they do not fit together."""
        length, score = self.match_length, self.score
        one_away = [s == length - 1 for s in score]
        match = MatchState(
            match_length=length,
            score=score if length else (0, 0),
            cube_value=self.cube,
            cube_owner=self.owner,
            crawford=bool(length) and self.crawford and sum(one_away) == 1,
            jacoby=self.jacoby and not length,
        )
        return replace(cube_state_for(match, self.turn), beavers=self.beavers and not length)

    @classmethod
    def of(cls, setup: PositionSetup) -> "Context":
        """The context a ``PositionID:MatchID`` or an XGID describes."""
        m = setup.match
        return cls(
            m.match_length, m.score, m.cube_value, m.cube_owner, setup.player, m.crawford, m.jacoby, setup.beavers
        )


@dataclass
class Answer:
    """One depth's answer: the final line, the info line's score and pv, the eval line's numbers."""

    line: str
    score: float
    pv: str
    probabilities: np.ndarray = field(repr=False)
    equity: float
    mwc: Optional[float]


class Search:
    """One prepared ``go``: deepens from depth 1 to ``depth``, each depth's answer replacing the last,
    until done, cancelled (``stop``) or out of ``movetime``."""

    def __init__(self, decide: Callable[[int], Answer], depth: int, movetime: Optional[float], info: bool) -> None:
        self.decide, self.depth, self.movetime, self.info = decide, depth, movetime, info

    def run(self, emit: Callable[[str], None], cancel: threading.Event) -> None:
        """Emit the info lines, the eval line and the answer. Depth 1 always finishes; deeper ones stop
        at ``cancel`` (set by ``stop`` or when ``movetime`` runs out)."""
        start = time.monotonic()
        timer = threading.Timer(self.movetime, cancel.set) if self.movetime is not None else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        best: Optional[Answer] = None
        try:
            for depth in range(1, self.depth + 1):
                if best is not None and cancel.is_set():
                    break
                try:
                    if best is None:
                        answer = self.decide(depth)
                    else:
                        with cancel_on(cancel):
                            answer = self.decide(depth)
                except Cancelled:
                    break
                best = answer
                if self.info:
                    ms = round((time.monotonic() - start) * 1000)
                    emit(f"info depth {depth} time_ms {ms} score {answer.score:.4f} pv {answer.pv}")
        finally:
            if timer is not None:
                timer.cancel()
        assert best is not None  # depth 1 always runs to the end
        if self.info:
            p = best.probabilities
            mwc = f" mwc {best.mwc:.4f}" if best.mwc is not None else ""
            emit(f"eval eq {best.equity:.4f}{mwc} pwin {p[0]:.4f} pgammon {p[1]:.4f} pbg {p[2]:.4f}")
        emit(best.line)


def _on_off(word: str, what: str) -> bool:
    if word not in ("on", "off"):
        raise UbgiError(BAD_VALUE, f"{what} must_be on|off")
    return word == "on"


def _seat(word: str, what: str) -> int:
    if word not in ("p0", "p1"):
        raise UbgiError(BAD_VALUE, f"{what} must_be p0|p1")
    return int(word[1])


def _number(text: str, what: str, low: int, high: int) -> int:
    try:
        return read_int(text, what, "ubgi", low, high, error=InvalidOptionError)
    except InvalidOptionError:
        raise UbgiError(BAD_VALUE, f"{what} must_be {low}..{high}") from None


def _variant_name(text: str) -> str:
    """A ``game.variant`` value: the variant's name if ``find_variant`` knows it, else the text (refused later)."""
    try:
        return find_variant(text).name
    except InvalidOptionError:
        return text


def _pairs(words: list[str], usage: str) -> dict[str, str]:
    """``name value name value ...`` as a dict; bad_command when odd or a name repeats."""
    if len(words) % 2:
        raise UbgiError(BAD_COMMAND, f"expected: {usage}")
    pairs: dict[str, str] = {}
    for name, value in zip(words[::2], words[1::2]):
        if name in pairs:
            raise UbgiError(BAD_COMMAND, f"{name} given twice; expected: {usage}")
        pairs[name] = value
    return pairs


def _read_setup(game: Variant, kind: str, text: str) -> tuple[np.ndarray, Optional[PositionSetup]]:
    """The board a ``position`` command gives in ``game``, with the setup around it: backgammon's Position ID,
    ``PositionID:MatchID`` or XGID; long nardy's Position ID (or position text), no setup (the session's)."""
    if game is BACKGAMMON:
        setup = read_position(text)
        return setup.board, setup
    if kind == "xgid":
        raise UbgiError(UNSUPPORTED, f"position xgid in {game.title}: an XGID is a backgammon position")
    if ":" in text:
        raise UbgiError(
            UNSUPPORTED, f"a Match ID in {game.title}: give score, cube and turn with setscore, setcube and setturn"
        )
    return game.position.from_id(text).board, None


def _reads(game: Variant, kind: str, text: str) -> bool:
    """Whether ``text`` is a position of ``game`` (to name the game of a position given in the other)."""
    try:
        _read_setup(game, kind, text)
    except (BackgammonError, UbgiError):
        return False
    return True


class UbgiEngine:
    """The protocol's state and commands, without any I/O but ``emit`` (one line, no newline).

    ``command(line)`` answers every command but ``go``, for which it returns the prepared ``Search``
    (bad input is answered at once, and nothing returned); ``run_now`` also runs that search.
    ``load(path, variant)`` reads a checkpoint of a game for ``engine.checkpoint`` (None: the shipped
    bot); ``bot`` plays its own game, the one ``game.variant`` starts with.
    """

    def __init__(
        self,
        bot: Bot,
        emit: Callable[[str], None],
        load: Callable[[Optional[str], Variant], Bot] = Bot.load,
    ) -> None:
        self.emit, self.load = emit, load
        self.values = {name: key.default for name, key in KEYS.items()}
        self.values["game.variant"] = bot.variant.name
        # Each game's engine.checkpoint value and bot; a game's shipped bot is loaded when game.variant first names it.
        self.bots: dict[str, tuple[str, Bot]] = {bot.variant.name: (SHIPPED, bot)}
        self.rng = np.random.default_rng(0)
        self.context = Context()
        self.finished = False
        self._new_game()

    @property
    def game(self) -> Variant:
        """The game ``game.variant`` names."""
        return find_variant(self.values["game.variant"])

    @property
    def bot(self) -> Bot:
        """The bot of the game ``game.variant`` names."""
        return self.bots[self.values["game.variant"]][1]

    # ------------------------------------------------------------ driving

    def command(self, line: str) -> Optional[Search]:
        """Carry out one command line; return the search a ``go`` asks for."""
        words = line.split()
        if not words:
            return None
        handler = self._COMMANDS.get(words[0])
        try:
            if handler is None:
                raise UbgiError(BAD_COMMAND, f"unknown command {quote(words[0])}")
            return handler(self, words[1:], line)
        except UbgiError as error:
            self.emit(error.line)
        except BackgammonError as error:  # a parser's verdict on a value
            self.emit(UbgiError(BAD_VALUE, str(error)).line)
        return None

    def run_now(self, line: str) -> None:
        """``command``, and run the search of a ``go`` to its end on this thread."""
        search = self.command(line)
        if search is not None:
            search.run(self.emit, threading.Event())

    # ------------------------------------------------------------ handshake and options

    def _ubgi(self, args: list[str], line: str) -> None:
        self.emit(f"id name {ENGINE_NAME}")
        self.emit(f"id author {ENGINE_AUTHOR}")
        self.emit(f"id version {nardy_version()}")
        self.emit(f"proto {PROTOCOL_VERSION}")
        self._keys([], line)
        for name, key in V01_OPTIONS.items():
            self.emit(KEYS[key].option_line(name))
        self.emit("ubgiok")

    def _isready(self, args: list[str], line: str) -> None:
        self.emit("readyok")

    def _proto(self, args: list[str], line: str) -> None:
        self.emit(f"proto {PROTOCOL_VERSION}")

    def _quit(self, args: list[str], line: str) -> None:
        self.finished = True

    def _stop(self, args: list[str], line: str) -> None:
        """Nothing is searching (``serve`` handles ``stop`` during a search)."""

    def _keys(self, args: list[str], line: str) -> None:
        for key in KEYS.values():
            self.emit(key.line)

    def _get(self, args: list[str], line: str) -> None:
        if len(args) != 1:
            raise UbgiError(BAD_COMMAND, "expected: get <key>")
        if args[0] not in KEYS:
            raise UbgiError(UNSUPPORTED, f"key {quote(args[0])}")
        self.emit(f"value {args[0]} {self.values[args[0]]}")

    def _set(self, args: list[str], line: str) -> None:
        if len(args) < 2:
            raise UbgiError(BAD_COMMAND, "expected: set <key> <value>")
        name = args[0]
        value = line.split(None, 2)[2].strip()  # a path may hold spaces
        self._assign(name, value)

    def _setoption(self, args: list[str], line: str) -> None:
        """v0.1's ``setoption name <name> value <value>``: a v0.1 option name, or a key."""
        match = re.fullmatch(r"\s*setoption\s+name\s+(\S+)\s+value\s+(.+?)\s*", line)
        if match is None:
            raise UbgiError(BAD_COMMAND, "expected: setoption name <name> value <value>")
        name = match.group(1)
        self._assign(_V01_KEYS.get(name.lower(), name), match.group(2))

    def _assign(self, name: str, text: str) -> None:
        key = KEYS.get(name)
        if key is None:
            raise UbgiError(UNSUPPORTED, f"key {quote(name)}")
        value = key.parse(_variant_name(text) if name == "game.variant" else text)
        if name in ("engine.ply", "engine.depth"):  # one setting, counted two ways
            ply = int(value) - (name == "engine.depth")
            self.values["engine.ply"], self.values["engine.depth"] = str(ply), str(ply + 1)
            return
        if name == "engine.checkpoint":
            self.bots[self.game.name] = (value, self._load(value, self.game, name))
        elif name == "engine.seed":
            self.rng = np.random.default_rng(int(value))
        elif name == "game.variant" and value != self.values[name]:
            if value not in self.bots:
                self.bots[value] = (SHIPPED, self._load(SHIPPED, find_variant(value), f"{name} {value}:"))
            self.values["engine.checkpoint"] = self.bots[value][0]
            self._new_game()  # a position or dice of the other game mean nothing in this one
        self.values[name] = value

    def _load(self, checkpoint: str, game: Variant, what: str) -> Bot:
        """The bot of ``game`` from ``checkpoint`` (``SHIPPED``: the shipped one); bad_value naming ``what``."""
        try:
            bot = self.load(None if checkpoint == SHIPPED else checkpoint, game)
        except (CheckpointError, OSError) as error:
            raise UbgiError(BAD_VALUE, f"{what} {error}") from None
        if bot.variant is not game:
            network = "the shipped network" if checkpoint == SHIPPED else quote(checkpoint)
            raise UbgiError(BAD_VALUE, f"{what} {network} plays {bot.variant.title}, not {game.title}")
        return bot

    # ------------------------------------------------------------ context

    def _new_game(self) -> None:
        """Forget the position and dice; the cube goes back to 1 in the middle, player 0 on roll."""
        self.board: Optional[np.ndarray] = None
        self.dice: Optional[tuple[int, int]] = None
        self.double_offered = False
        self.resign_offered = 0
        self.context = replace(self.context, cube=1, owner=None, turn=0)

    def _newgame(self, args: list[str], line: str) -> None:
        if args:
            raise UbgiError(BAD_COMMAND, "expected: newgame")
        self._new_game()

    def _newsession(self, args: list[str], line: str) -> None:
        usage = "newsession type <money|match> [length <N>] [jacoby on|off] [crawford on|off] [beavers on|off]"
        pairs = _pairs(args, usage)
        unknown = set(pairs) - {"type", "length", "jacoby", "crawford", "beavers"}
        if unknown or "type" not in pairs:
            raise UbgiError(BAD_COMMAND, f"expected: {usage}")
        kind = pairs["type"]
        if kind not in ("money", "match"):
            raise UbgiError(BAD_VALUE, "type must_be money|match")
        if (kind == "match") != ("length" in pairs):
            raise UbgiError(BAD_VALUE, "length: a match needs one, a money session has none")
        length = _number(pairs["length"], "length", 1, MAX_MATCH_LENGTH) if kind == "match" else 0
        self.context = Context(
            match_length=length,
            crawford=_on_off(pairs.get("crawford", "off"), "crawford"),
            jacoby=_on_off(pairs.get("jacoby", "off"), "jacoby"),
            beavers=_on_off(pairs.get("beavers", "off"), "beavers"),
        )
        self._new_game()

    def _setscore(self, args: list[str], line: str) -> None:
        if len(args) != 2:
            raise UbgiError(BAD_COMMAND, "expected: setscore <p0> <p1>")
        score = (_number(args[0], "p0 score", 0, MAX_MATCH_LENGTH), _number(args[1], "p1 score", 0, MAX_MATCH_LENGTH))
        self.context = replace(self.context, score=score)

    def _setcube(self, args: list[str], line: str) -> None:
        usage = "setcube value <N> owner <center|p0|p1>"
        pairs = _pairs(args, usage)
        if set(pairs) != {"value", "owner"}:
            raise UbgiError(BAD_COMMAND, f"expected: {usage}")
        value = _number(pairs["value"], "cube value", 1, MAX_CUBE)
        if not is_cube_value(value):
            raise UbgiError(BAD_VALUE, f"cube value {value} must_be a power of two")
        owner = None if pairs["owner"] == "center" else _seat(pairs["owner"], "owner")
        if owner is None and value != 1:
            raise UbgiError(BAD_VALUE, f"cube value {value}: a centred cube is on 1")
        self.context = replace(self.context, cube=value, owner=owner)

    def _setturn(self, args: list[str], line: str) -> None:
        if len(args) != 1:
            raise UbgiError(BAD_COMMAND, "expected: setturn <p0|p1>")
        self.context = replace(self.context, turn=_seat(args[0], "turn"))

    def _position(self, args: list[str], line: str) -> None:
        if len(args) != 2 or args[0] not in ("gnubgid", "xgid"):
            if args and args[0] not in ("gnubgid", "xgid"):
                raise UbgiError(UNSUPPORTED, f"position format {quote(args[0])} (gnubgid and xgid are)")
            raise UbgiError(BAD_COMMAND, "expected: position gnubgid <id> | position xgid <xgid>")
        kind, text = args
        if kind == "xgid":
            text = text if text.upper().startswith("XGID=") else f"XGID={text}"
        elif text.upper().startswith("XGID="):
            raise UbgiError(BAD_VALUE, "an XGID goes in position xgid")
        game = self.game
        try:
            board, setup = _read_setup(game, kind, text)
        except (BackgammonError, UbgiError):
            other = next((v for v in map(find_variant, VARIANTS) if v is not game and _reads(v, kind, text)), None)
            if other is None:
                raise
            raise UbgiError(
                BAD_VALUE, f"{quote(text)} is a {other.title} position, not {game.title}: set game.variant {other.name}"
            ) from None
        self.board, self.dice = check_game_on(board, game), None
        self.double_offered, self.resign_offered = False, 0
        if setup is not None:
            if kind == "xgid" or ":" in text:
                self.context = Context.of(setup)
            self.dice, self.double_offered, self.resign_offered = setup.dice, setup.double_offered, setup.resign_offered

    def _dice(self, args: list[str], line: str) -> None:
        if len(args) != 2 or not all(re.fullmatch(r"[0-9]+", a, re.ASCII) for a in args):
            raise UbgiError(BAD_COMMAND, "expected: dice <d1> <d2>")
        self.dice = validate_dice((_number(args[0], "die", 1, 6), _number(args[1], "die", 1, 6)))

    # ------------------------------------------------------------ decisions

    def _go(self, args: list[str], line: str) -> Search:
        role = "chequer"
        rest = args
        if rest and rest[0] == "role":
            if len(rest) < 2:
                raise UbgiError(BAD_COMMAND, "expected: go role <chequer|cube|turn>")
            role, rest = rest[1], rest[2:]
        elif rest and rest[0] not in LIMITS:
            role, rest = rest[0], rest[1:]
        if role not in ROLES:
            raise UbgiError(BAD_COMMAND, f"go {quote(role)}: expected chequer, cube or turn")
        limits = _pairs(rest, "go [chequer|cube|turn] [depth <n>] [movetime <ms>]")
        for name in limits:
            if name not in LIMITS:
                raise UbgiError(BAD_COMMAND, f"go limit {quote(name)}: expected depth or movetime")
            if name in ("nodes", "trials"):
                raise UbgiError(UNSUPPORTED, f"go {name}")
        level = self._level(None)
        depth = (level.plies + 1) if level is not None else int(self.values["engine.depth"])
        if "depth" in limits:
            depth = _number(limits["depth"], "depth", DEPTHS[0], DEPTHS[-1])
        movetime = _number(limits["movetime"], "movetime", 1, MAX_MOVETIME_MS) / 1000 if "movetime" in limits else None

        if self.board is None:
            raise UbgiError(BAD_STATE, "missing position")
        if self.resign_offered:
            raise UbgiError(UNSUPPORTED, "answering a resignation")
        if self.double_offered and role != "chequer":
            raise UbgiError(UNSUPPORTED, "answering a double (bestcube is double or nodouble)")
        if role != "cube" and self.dice is None:
            raise UbgiError(BAD_STATE, "missing dice")
        try:
            state = self.context.cube_state()
        except BackgammonError as error:
            raise UbgiError(BAD_STATE, f"score and cube: {error}") from None
        board, dice = self.board, self.dice
        decide = {
            "chequer": lambda d: self._chequer(board, dice, state, d),
            "cube": lambda d: self._cube(board, state, d),
            "turn": lambda d: self._turn(board, dice, state, d),
        }[role]
        return Search(decide, depth, movetime, self.values["engine.info"] == "true")

    def _level(self, depth: Optional[int]) -> Optional[Level]:
        """The playing level (at ``depth`` if given, its own otherwise), or None for plain search."""
        name = self.values["engine.level"]
        if name == NO_LEVEL:
            return None
        level = replace(level_named(name), deterministic=self.values["engine.deterministic"] == "true")
        return level if depth is None else replace(level, plies=depth - 1)

    def _chequer(self, board: np.ndarray, dice, state: CubeState, depth: int) -> Answer:
        if self.values["engine.eval_mode"] == "cubeless":
            state = CubeState()
        ranked = self.bot.rank_plays(board, dice, plies=depth - 1, state=state)
        chosen = ranked[0]
        level = self._level(depth)
        if level is not None and level.noise:
            play = LevelPlayer(self.bot, level, self.rng).choose_play(board, dice, state)
            chosen = next(r for r in ranked if r.play == play)
        pv = format_steps(chosen.play) or "pass"
        score = chosen.mwc if chosen.mwc is not None else chosen.equity
        return Answer(f"bestmove {pv}", score, pv, chosen.probabilities, chosen.equity, chosen.mwc)

    def _cube(self, board: np.ndarray, state: CubeState, depth: int) -> Answer:
        evaluation = self.bot.evaluate(board, state, depth - 1)
        decision = evaluation.cube
        level = self._level(depth)
        if level is not None and level.noise:
            decision = LevelPlayer(self.bot, level, self.rng).cube_decision(board, state)
        verdict = "double" if decision.should_double else "nodouble"
        return Answer(
            f"bestcube {verdict}",
            evaluation.cubeful_equity,
            verdict,
            evaluation.probabilities,
            evaluation.cubeful_equity,
            evaluation.mwc,
        )

    def _turn(self, board: np.ndarray, dice, state: CubeState, depth: int) -> Answer:
        cube = self._cube(board, state, depth)
        if cube.pv == "double":  # the play is made with the cube taken: doubled, the opponent's
            state = replace(state, cube=state.cube * 2, owner=Owner.OPP)
        move = self._chequer(board, dice, state, depth)
        return Answer(
            f"bestturn cube={cube.pv} move={move.pv}",
            move.score,
            f"{cube.pv} {move.pv}",
            move.probabilities,
            move.equity,
            move.mwc,
        )

    _COMMANDS: dict[str, Callable[["UbgiEngine", list[str], str], Optional[Search]]] = {
        "ubgi": _ubgi,
        "isready": _isready,
        "proto": _proto,
        "quit": _quit,
        "stop": _stop,
        "keys": _keys,
        "get": _get,
        "set": _set,
        "setoption": _setoption,
        "newgame": _newgame,
        "newsession": _newsession,
        "setscore": _setscore,
        "setcube": _setcube,
        "setturn": _setturn,
        "position": _position,
        "dice": _dice,
        "go": _go,
    }


def nardy_version() -> str:
    """The installed package's version, for the engines' handshakes."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nardy")
    except PackageNotFoundError:
        return "unknown"


# ---------------------------------------------------------------- the stdin/stdout loop


class _Output:
    """Lines to the controller, one at a time (the search thread writes too), each flushed at once."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream, self.lock = stream, threading.Lock()

    def __call__(self, line: str) -> None:
        with self.lock:
            self.stream.write(line + "\n")
            self.stream.flush()


def read_lines(stream: Union[IO[bytes], IO[str]]) -> Iterator[Optional[str]]:
    """The stream's lines, stripped, undecodable bytes replaced; None for a line over ``MAX_LINE``
    bytes (characters, from a text stream), whose rest is read and dropped."""
    while True:
        raw = stream.readline(MAX_LINE + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE and not _ends_line(raw):
            while not _ends_line(stream.readline(MAX_LINE)):
                pass
            yield None
            continue
        yield (raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw).strip()


def _ends_line(chunk: Union[bytes, str]) -> bool:
    """Whether a chunk read ends its line: it ends with a newline, or the input has ended."""
    return not chunk or (chunk.endswith(b"\n") if isinstance(chunk, bytes) else chunk.endswith("\n"))


TOO_LONG = object()  # a line over MAX_LINE, in the queue of ``serve``
DONE = object()  # the running search has given its answer
END = object()  # the end of input


def serve(engine: UbgiEngine, stdin: Union[IO[bytes], IO[str]], background: bool = True) -> None:
    """Read commands until ``quit`` or the end of input; ``engine.emit`` writes the answers.

    With ``background`` a ``go`` searches on a thread while a reader thread keeps reading:
    ``stop`` ends the search (the deepest answer so far is given), ``isready`` is answered at
    once, ``quit`` stops it and ends; any other command, and these three after one, waits in
    order for the answer. At the end of input the commands read are all carried out. Without
    ``background`` everything runs on this thread, one command after another.
    """
    if not background:
        for line in read_lines(stdin):
            _carry_out(engine, TOO_LONG if line is None else line, None)
            if engine.finished:
                return
        return
    events: "queue.Queue[object]" = queue.Queue()
    threading.Thread(target=_read_into, args=(stdin, events), daemon=True).start()
    pending: deque[object] = deque()
    cancel: Optional[threading.Event] = None  # set while a search runs
    ended = False
    while True:
        event = events.get()
        if event is DONE:
            cancel = None
        elif event is END:
            ended = True
        elif cancel is not None and not pending and event in ("stop", "isready", "quit"):
            if event == "isready":
                engine.emit("readyok")
            else:
                cancel.set()
                engine.finished = engine.finished or event == "quit"
        else:
            pending.append(event)
        while cancel is None and pending and not engine.finished:
            cancel = _carry_out(engine, pending.popleft(), events)
        if cancel is None and (engine.finished or (ended and not pending)):
            return


def _read_into(stdin: Union[IO[bytes], IO[str]], events: "queue.Queue[object]") -> None:
    for line in read_lines(stdin):
        events.put(TOO_LONG if line is None else line)
    events.put(END)


def _carry_out(engine: UbgiEngine, line: object, events: "Optional[queue.Queue[object]]") -> Optional[threading.Event]:
    """One command line; a ``go`` searches here (no ``events``) or on a thread that puts ``DONE`` into
    ``events`` when it has answered. Returns the running search's cancel event."""
    if line is TOO_LONG:
        engine.emit(UbgiError(BAD_COMMAND, f"line longer than {MAX_LINE} bytes").line)
        return None
    assert isinstance(line, str)
    if line == "stop":
        return None  # nothing is searching
    search = engine.command(line)
    if search is None:
        return None
    cancel = threading.Event()
    if events is None:
        _run_search(search, engine, cancel)
        return None

    def run() -> None:
        try:
            _run_search(search, engine, cancel)
        finally:
            events.put(DONE)

    threading.Thread(target=run, daemon=True).start()
    return cancel


def _run_search(search: Search, engine: UbgiEngine, cancel: threading.Event) -> None:
    """A search's lines; a failure the checks before it missed still gets an error line."""
    try:
        search.run(engine.emit, cancel)
    except BackgammonError as error:
        engine.emit(UbgiError(BAD_STATE, str(error)).line)
    except Exception as error:  # a bug: the controller still gets a line, the engine reads on
        log.exception("ubgi: search failed")
        engine.emit(UbgiError(BAD_STATE, f"internal error: {type(error).__name__}").line)


def run_stdio(
    bot: Bot,
    stdin: Union[IO[bytes], IO[str]],
    stdout: IO[str],
    load: Callable[[Optional[str], Variant], Bot] = Bot.load,
) -> int:
    """``nardy ubgi``: the engine on these streams until ``quit`` or end of input; exit status 0."""
    serve(UbgiEngine(bot, _Output(stdout), load), stdin)
    return 0
