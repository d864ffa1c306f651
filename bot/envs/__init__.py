"""Backgammon and long nardy for reinforcement-learning libraries: Gymnasium, PettingZoo and OpenSpiel (the ``envs``
extra).

Importing this package registers ``nardy/Backgammon-v0`` and ``nardy/LongNardy-v0`` with Gymnasium: ``gymnasium.make``
gives one agent against an opponent (``opponent="pubeval"``, ``"random"``, a playing level,
an evaluator, a player or a function; an illegal action loses the game with an
``IllegalActionWarning``, or raises with ``illegal_action="raise"``), ``gymnasium.make_vec(..., vectorization_mode=
"vector_entry_point")`` N such games in lockstep on the batched engine
(``nardy/BackgammonVector-v0`` is the same vector environment by its own id). Long nardy's are
the same environments on its rules (``engine.variant``): its opponents ``"random"``, ``"heuristic"``
(the default) or a level of its shipped network, oin and mars scored 1 and 2, long nardy Position IDs
in ``reset(options=...)``; ``nardy/LongNardyVector-v0`` is its vector environment by its own id.
``env()`` and ``raw_env()`` are the PettingZoo AEC environment for two agents (``env(variant="long")``
for long nardy). ``bot.envs.openspiel`` plays
OpenSpiel's own ``backgammon`` with the bot. docs/envs.md describes spaces, rewards, masks
and seeding.

Nothing else in the project imports this package: ``import bot`` never loads these libraries.
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from bot.envs.aec import env, raw_env
from bot.envs.games import MAX_ACTIONS, OBSERVATION_SIZE, Legal
from bot.envs.gym_env import BackgammonEnv, IllegalActionWarning, LongNardyEnv, notation_of
from bot.envs.opponents import opponent
from bot.envs.vector import BackgammonVectorEnv, LongNardyVectorEnv

ENV_ID = "nardy/Backgammon-v0"
VECTOR_ENV_ID = "nardy/BackgammonVector-v0"
LONG_NARDY_ENV_ID = "nardy/LongNardy-v0"
LONG_NARDY_VECTOR_ENV_ID = "nardy/LongNardyVector-v0"

for _single, _vector, _env, _vector_env in (
    (ENV_ID, VECTOR_ENV_ID, "BackgammonEnv", "BackgammonVectorEnv"),
    (LONG_NARDY_ENV_ID, LONG_NARDY_VECTOR_ENV_ID, "LongNardyEnv", "LongNardyVectorEnv"),
):
    if _single not in registry:
        register(
            id=_single,
            entry_point=f"bot.envs.gym_env:{_env}",
            vector_entry_point=f"bot.envs.vector:{_vector_env}",
        )
    if _vector not in registry:
        register(id=_vector, vector_entry_point=f"bot.envs.vector:{_vector_env}")

__all__ = [
    "BackgammonEnv",
    "BackgammonVectorEnv",
    "ENV_ID",
    "IllegalActionWarning",
    "LONG_NARDY_ENV_ID",
    "LONG_NARDY_VECTOR_ENV_ID",
    "Legal",
    "LongNardyEnv",
    "LongNardyVectorEnv",
    "MAX_ACTIONS",
    "OBSERVATION_SIZE",
    "VECTOR_ENV_ID",
    "env",
    "notation_of",
    "opponent",
    "raw_env",
]
