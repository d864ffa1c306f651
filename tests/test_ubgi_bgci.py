"""bgci's ``check`` (bungogood/bgci, ``checker.rs``), ported: what the UBGI controller sends to ``nardy ubgi``
over pipes, and what it asserts before it reports PASS; then a controller's ``engine.ply 0``.

bgci's check comes in two dialects: v0.1's (``option`` lines at the handshake, ``setoption name Variant
value backgammon``, ``go role chequer``) and v0.2's (``key`` lines, ``set game.variant backgammon``,
``go chequer``, and one more probe). Both run here, step by step as bgci runs them.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator, Optional

import pytest

from bot.facade import Bot
from engine.errors import BackgammonError
from engine.notation import parse_move
from engine.plays import legal_plays
from engine.position_id import decode_position_id

REPO = Path(__file__).resolve().parents[1]
START_ID = "4HPwATDgc/ABMA"
# Generous: the first answer waits for the network to load, on a machine shared with other work.
READ_DEADLINE = 120.0


@dataclass(frozen=True)
class Dialect:
    """What one version of bgci's check sends, and which handshake lines it lists as options."""

    option_prefix: str
    set_variant: str
    go: str
    probes: tuple[tuple[str, str, tuple[int, int], Optional[str]], ...]


# bgci's probes: (phase, Position ID, dice, the token the bestmove must hold, or None: a legal play is enough).
BAR_PROBE = ("bar-notation probe", "Np7BQSCYZ/AAWA", (5, 3), "bar")
OFF_PROBE = ("off-notation probe", "/z0AADDeaxsAAA", (5, 5), "off")
AWKWARD_PROBE = ("awkward-legal probe: bearoff must use both dice", "t02oASACAAAAAA", (5, 1), None)
DIALECTS = {
    "v0.1": Dialect("option ", "setoption name Variant value backgammon", "go role chequer", (BAR_PROBE, OFF_PROBE)),
    "v0.2": Dialect("key ", "set game.variant backgammon", "go chequer", (BAR_PROBE, OFF_PROBE, AWKWARD_PROBE)),
}


@dataclass
class Report:
    """bgci's CheckReport: PASS needs the four capabilities and no errors."""

    ids: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    supports_newgame: bool = False
    supports_position: bool = False
    supports_dice: bool = False
    supports_go_chequer: bool = False
    bar_notation_ok: bool = False
    off_notation_ok: bool = False
    errors: list[str] = field(default_factory=list)

    @property
    def is_pass(self) -> bool:
        return (
            self.supports_newgame
            and self.supports_position
            and self.supports_dice
            and self.supports_go_chequer
            and not self.errors
        )


class Engine:
    """``nardy ubgi`` as bgci's EngineProcess runs it: commands on stdin, one response line at a time."""

    def __init__(self, stderr: IO[str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "ubgi"],
            cwd=REPO,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            bufsize=1,
        )
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")

    def read(self) -> str:
        try:
            line = self.lines.get(timeout=READ_DEADLINE)
        except queue.Empty:
            raise AssertionError(f"no line from the engine in {READ_DEADLINE:.0f} s") from None
        assert line is not None, "the engine closed its output"
        return line

    def quit(self) -> int:
        self.send("quit")
        try:
            return self.proc.wait(timeout=READ_DEADLINE)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def engine(tmp_path) -> Iterator[Engine]:
    with open(tmp_path / "stderr.txt", "w+") as stderr:
        engine = Engine(stderr)
        try:
            yield engine
        finally:
            if engine.proc.poll() is None:
                engine.proc.kill()
                engine.proc.wait()


def wait_readyok(engine: Engine, errors: list[str], phase: str) -> bool:
    """bgci's wait_readyok: true at ``readyok``; an error line first is recorded and gives false."""
    while True:
        line = engine.read()
        if line == "readyok":
            return True
        if line.startswith("error "):
            errors.append(f"{phase}: {line}")
            return False


def read_bestmove(engine: Engine, errors: list[str], phase: str) -> Optional[str]:
    """The payload of the next ``bestmove`` line (info and eval lines skipped), or None after an error."""
    while True:
        line = engine.read()
        if line.startswith("bestmove "):
            return line[len("bestmove ") :].strip()
        if line.startswith("best"):
            errors.append(f"{phase}: expected bestmove payload, got '{line}'")
            return None
        if line.startswith("error "):
            errors.append(f"{phase}: {line}")
            return None


def check_legal(move: str, position_id: str, dice: tuple[int, int], errors: list[str], phase: str) -> None:
    """bgci applies the move and looks for the result among the legal children."""
    board = decode_position_id(position_id)
    try:
        play = parse_move(move, board, dice)
    except BackgammonError as error:
        errors.append(f"{phase}: illegal bestmove '{move}' ({error})")
        return
    children = {p.afterstate.tobytes() for p in legal_plays(board, dice)}
    if play.afterstate.tobytes() not in children:
        errors.append(f"{phase}: engine returned move not in legal children ({move})")


def tokens(move: str) -> list[str]:
    """A move's from/to parts, as bgci splits them (``*`` dropped)."""
    return [part for token in move.split() for part in token.replace("*", "").split("/")]


def run_check(engine: Engine, dialect: Dialect) -> Report:
    """bgci's run_check, step by step."""
    report = Report()
    engine.send("ubgi")
    while True:
        line = engine.read()
        if line in ("ubgiok", "readyok"):
            break
        if line.startswith("id "):
            report.ids.append(line)
        elif line.startswith(dialect.option_prefix):
            report.options.append(line)
        elif line.startswith("error "):
            report.errors.append(f"ubgi: {line}")
            break

    engine.send("isready")
    wait_readyok(engine, report.errors, "isready")

    engine.send("newgame")
    engine.send("isready")
    report.supports_newgame = wait_readyok(engine, report.errors, "newgame")

    engine.send(dialect.set_variant)
    engine.send("isready")
    wait_readyok(engine, report.errors, dialect.set_variant)

    engine.send(f"position gnubgid {START_ID}")
    report.supports_position = True
    engine.send("dice 6 1")
    report.supports_dice = True
    engine.send(dialect.go)
    move = read_bestmove(engine, report.errors, dialect.go)
    if move is not None:
        report.supports_go_chequer = True
        check_legal(move, START_ID, (6, 1), report.errors, dialect.go)

    for phase, position_id, dice, token in dialect.probes:
        assert legal_plays(decode_position_id(position_id), dice)[0].steps, f"{phase}: the probe has a legal move"
        engine.send(f"position gnubgid {position_id}")
        engine.send(f"dice {max(dice)} {min(dice)}")
        engine.send(dialect.go)
        move = read_bestmove(engine, report.errors, phase)
        if move is None:
            continue
        if any(part in ("25", "0") for part in tokens(move)):
            report.errors.append(f"{phase}: numeric alias in bestmove '{move}'")
        if token is None:
            check_legal(move, position_id, dice, report.errors, phase)
            continue
        found = any(part.lower() == token for part in tokens(move))
        if token == "bar":
            report.bar_notation_ok = found
        else:
            report.off_notation_ok = found
        if not found:
            report.errors.append(f"{phase}: expected '{token}' token in bestmove '{move}'")
    return report


@pytest.mark.parametrize("name", DIALECTS)
def test_bgci_check_passes(engine, name):
    dialect = DIALECTS[name]
    report = run_check(engine, dialect)
    assert report.errors == []
    assert report.is_pass and report.bar_notation_ok and report.off_notation_ok
    assert report.ids[0] == "id name nardy"
    if name == "v0.1":
        assert "option name Variant type combo default backgammon var backgammon var long_nardy" in report.options
    else:
        assert any(
            line.startswith("key game.variant enum backgammon|long_nardy backgammon ") for line in report.options
        )
    assert engine.quit() == 0


def test_a_variant_this_engine_does_not_play_gets_an_error_naming_it(engine):
    """bgci's duel sends the variant it plays; one this engine does not play is refused, and it reads on."""
    for line in ("setoption name Variant value nackgammon", "setoption name Variant value hypergammon"):
        engine.send(line)
        engine.send("isready")
        errors: list[str] = []
        assert not wait_readyok(engine, errors, "variant")
        variant = line.rsplit(" ", 1)[1]
        assert errors == [f"variant: error bad_value game.variant must_be backgammon|long_nardy, not '{variant}'"]
        assert engine.read() == "readyok"
    engine.send("get game.variant")
    assert engine.read() == "value game.variant backgammon"
    assert engine.quit() == 0


@pytest.mark.parametrize("setting", ["set engine.ply 0", "setoption name Ply value 0"])
def test_a_controller_setting_ply_0_gets_the_static_evaluation(engine, setting):
    """GNU Backgammon's 0-ply, as gnubg-ubgi's ``engine.ply 0`` gives it: each play's resulting position
    evaluated by the network alone, no roll looked ahead (one depth of ``info``)."""
    bot = Bot.load()
    expected = bot.best_play(decode_position_id(START_ID), (4, 2), plies=0)
    engine.send(setting)
    engine.send(f"position gnubgid {START_ID}")
    engine.send("dice 4 2")
    engine.send("go")
    lines = [engine.read() for _ in range(3)]
    assert re.fullmatch(r"info depth 1 time_ms \d+ score -?\d\.\d{4} pv .+", lines[0]), lines
    p = expected.probabilities
    assert lines[1] == f"eval eq {expected.equity:.4f} pwin {p[0]:.4f} pgammon {p[1]:.4f} pbg {p[2]:.4f}"
    assert lines[2] == f"bestmove {expected.notation}"
    assert engine.quit() == 0
