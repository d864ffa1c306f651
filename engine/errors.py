"""The engine's exceptions: every bad input raises one of these, with a message naming it.

``BackgammonError`` is the one family the doors catch: every input error, the
bot's included, subclasses it; anything else escaping a door is a bug.
"""

# The most characters of an input that a message quotes (100 KB in must not give 100 KB out).
QUOTE_LIMIT = 60


class BackgammonError(ValueError):
    """Base class of every error the engine raises for bad input."""


class InvalidPositionError(BackgammonError):
    """A board, Position ID, XGID or FIBS board that does not describe a legal position."""


class InvalidMatchError(BackgammonError):
    """A Match ID or match state that is malformed or inconsistent."""


class InvalidDiceError(BackgammonError):
    """Dice outside 1..6, or not two of them."""


class InvalidMoveError(BackgammonError):
    """Move text that cannot be read at all (bad syntax, points out of range)."""


class IllegalMoveError(BackgammonError):
    """A well-formed move that the rules do not allow in the given position and roll."""


class InvalidOptionError(BackgammonError):
    """A request or command-line option out of its range (plies, top, lengths, counts)."""


def check_range(name: str, value: int, low: int, high: int) -> int:
    """``value`` if ``low <= value <= high``, else InvalidOptionError naming ``name``, the value and the range.

    The one bounds check of the doors' numbers (command-line options, query parameters), so a
    number too big for the work it sizes is refused before any work starts.

    >>> check_range("--seed", 3, 0, 9)
    3
    >>> try:
    ...     check_range("--seed", -1, 0, 9)
    ... except InvalidOptionError as error:
    ...     print(error)
    --seed -1: expected 0..9
    """
    if not low <= value <= high:
        raise InvalidOptionError(f"{name} {quote(value)}: expected {low}..{high}")
    return value


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to at most ``limit`` characters (a trailing ``...`` marks a cut), for messages.

    >>> quote("x" * 100, 10)
    "'xxxxxx..."
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
