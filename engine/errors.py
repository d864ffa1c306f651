"""The engine's exceptions: every bad input raises one of these, with a message naming it."""


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
