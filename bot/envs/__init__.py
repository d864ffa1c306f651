"""Backgammon for reinforcement-learning libraries: Gymnasium, PettingZoo and OpenSpiel (the ``envs`` extra).

Importing this package registers ``nardy/Backgammon-v0`` with Gymnasium: ``gymnasium.make``
gives one agent against an opponent (``opponent="pubeval"``, ``"random"``, a playing level,
an evaluator, a player or a function; an illegal action loses the game with an
``IllegalActionWarning``, or raises with ``illegal_action="raise"``), ``gymnasium.make_vec(..., vectorization_mode=
"vector_entry_point")`` N such games in lockstep on the batched engine
(``nardy/BackgammonVector-v0`` is the same vector environment by its own id). ``env()`` and
``raw_env()`` are the PettingZoo AEC environment for two agents. ``bot.envs.openspiel`` plays
OpenSpiel's own ``backgammon`` with the bot. docs/envs.md describes spaces, rewards, masks
and seeding.

Nothing else in the project imports this package: ``import bot`` never loads these libraries.
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from bot.envs.aec import env, raw_env
from bot.envs.games import MAX_ACTIONS, OBSERVATION_SIZE, Legal
from bot.envs.gym_env import BackgammonEnv, IllegalActionWarning, notation_of
from bot.envs.opponents import opponent
from bot.envs.vector import BackgammonVectorEnv

ENV_ID = "nardy/Backgammon-v0"
VECTOR_ENV_ID = "nardy/BackgammonVector-v0"

if ENV_ID not in registry:
    register(
        id=ENV_ID,
        entry_point="bot.envs.gym_env:BackgammonEnv",
        vector_entry_point="bot.envs.vector:BackgammonVectorEnv",
    )
if VECTOR_ENV_ID not in registry:
    register(id=VECTOR_ENV_ID, vector_entry_point="bot.envs.vector:BackgammonVectorEnv")

__all__ = [
    "BackgammonEnv",
    "BackgammonVectorEnv",
    "ENV_ID",
    "IllegalActionWarning",
    "Legal",
    "MAX_ACTIONS",
    "OBSERVATION_SIZE",
    "VECTOR_ENV_ID",
    "env",
    "notation_of",
    "opponent",
    "raw_env",
]
