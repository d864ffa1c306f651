"""Probabilities of positions: encodings, features, networks, position classes, bear-off databases, checkpoints.

Evaluators answer "how likely is each outcome?" for batches of boards, and exact cube
values where the databases know them; they import ``bot.equity`` and nothing above.
"""
