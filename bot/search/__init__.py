"""Looking ahead: n-ply search, the cube decision at every depth, rollouts.

Built on ``bot.evaluation`` and ``bot.equity``; ``cube_decision`` is where every cube
decision the bot gives is made.
"""
