"""The bot's side of long nardy: the network's input encoding, a heuristic yardstick player, move choice.

Kept free of imports here: ``bot.encoding`` reads ``bot.long_nardy.encoding`` while it
is being built, so the submodules are imported by name (``bot.long_nardy.player``).
"""
