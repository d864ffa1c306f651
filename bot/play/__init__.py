"""Using the bot: playing levels, duels and matches, match analysis, score matrices, speed gates.

Built on the facade (``bot.facade.Bot``) and the layers below it.
"""
