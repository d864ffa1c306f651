"""GNU Backgammon plays a short match against the external-player server (skipped without gnubg).

GNU Backgammon (Debian package ``gnubg``) connects with ``set player 1 external``
and asks this server for every decision of player 1; its own player 0 plays at
0-ply. The match must finish with a winner, and every move the server sent must
have been legal (GNU Backgammon itself would record an illegal one as given).
"""

from __future__ import annotations

import shutil
import subprocess
import threading

import pytest
import torch

from bot.doors import external
from bot.evaluation.evaluator import NetworkEvaluator
from bot.doors.external import ExternalServer
from bot.facade import Bot
from bot.play.match_play import Player
from bot.evaluation.network import NetworkConfig
from training.torch_network import ValueNetwork
from engine.fibs import parse_fibs_board
from engine.notation import parse_move

GNUBG = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")

pytestmark = pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon not installed (apt-get install gnubg)")


def test_gnubg_plays_a_match_against_the_external_player(monkeypatch):
    torch.manual_seed(4)
    bot = Bot(NetworkEvaluator(ValueNetwork(NetworkConfig(hidden=(8,))).eval()))
    dialogue: list[tuple[str, str]] = []

    def recording_reply(player: Player, line: str) -> str:
        answer = original(player, line)
        dialogue.append((line, answer))
        return answer

    original = external.reply
    monkeypatch.setattr(external, "reply", recording_reply)
    server = ExternalServer(bot, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    script = "\n".join(
        [
            "set rng mersenne",
            "set seed 7",
            "set player 0 gnubg",
            "set player 0 chequerplay evaluation plies 0",
            "set player 0 cubedecision evaluation plies 0",
            f"set player 1 external {host}:{port}",
            "new match 3",
            "",
        ]
    )
    try:
        done = subprocess.run([GNUBG, "-t", "-q"], input=script, capture_output=True, text=True, timeout=600)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "has won the match" in done.stdout, done.stdout[-3000:]
    assert not any(answer.startswith("Error") for _, answer in dialogue)
    moves = 0
    for line, answer in dialogue:
        fb = parse_fibs_board(line)
        if fb.dice is not None and not fb.answering_double:
            parse_move(answer, fb.board, fb.dice)  # raises unless the move was legal
            moves += 1
    assert moves > 10
