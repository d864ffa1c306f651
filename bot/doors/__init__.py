"""The front doors: everything that speaks to people or programs.

Each door only parses its input, calls ``bot.facade.Bot`` (or ``bot.play.match_play``)
and formats the answer: the command line (``cli``, with ``match_command``), the
terminal game (``terminal``), text formatting (``text``), the POSITION argument
(``positions``), GNU Backgammon's external-player server (``external``) and the
HTTP API (``http_views``: plain view functions; ``http_app``: the FastAPI routes).
Nothing outside this package imports it.
"""
