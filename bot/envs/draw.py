"""A picture of the board as an RGB numpy array, drawn with numpy alone (for ``render_mode="rgb_array"``).

The layout is ``engine.render``'s text board: the board in the view of the side on roll,
who moves 24 -> 1 along the bottom (home board bottom right) with light checkers; the
opponent's checkers are dark, its points 13..24 along the top. Bars are in the middle
column (the side on roll's below), borne-off checkers in the right-hand tray (the side on
roll's below), the dice of the roll in the right half of the board. Long nardy's boards draw
the same way (points in the side on roll's numbering, its head top left, the opponent's
bottom left), with empty bars.
"""

from __future__ import annotations

import numpy as np

from engine.board import borne_off
from engine.variant import BACKGAMMON, Variant

POINT = 24  # width of a point, pixels
RADIUS = 11
MARGIN = 10
BAR = 28
TRAY = 30
HALF = 6 * POINT
WIDTH = MARGIN + HALF + BAR + HALF + MARGIN + TRAY + MARGIN
HEIGHT = 300
SPIKE = 118  # height of a point's triangle

FELT = np.array([22, 96, 60], dtype=np.uint8)
FRAME = np.array([96, 60, 30], dtype=np.uint8)
POINT_COLOURS = (np.array([205, 180, 130], dtype=np.uint8), np.array([150, 70, 50], dtype=np.uint8))
MOVER = np.array([245, 242, 230], dtype=np.uint8)
OPPONENT = np.array([40, 30, 30], dtype=np.uint8)
RIM = np.array([120, 120, 120], dtype=np.uint8)
DIE = np.array([250, 250, 250], dtype=np.uint8)
PIP = np.array([10, 10, 10], dtype=np.uint8)

# Pip offsets of each die face, in thirds of the die's half-width.
FACES = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _column_x(point: int) -> int:
    """The x of the centre of ``point`` (1..24, the side on roll's numbering)."""
    if point >= 13:
        column = point - 13 if point <= 18 else point - 19 + 6
    else:
        column = 12 - point if point >= 7 else 6 - point + 6
    left = MARGIN + column * POINT + (BAR if column >= 6 else 0)
    return left + POINT // 2


def _disc(image: np.ndarray, cx: float, cy: float, radius: float, colour: np.ndarray, rim: bool = True) -> None:
    """A filled circle (with a grey rim) centred at (cx, cy), clipped to the image."""
    x0, x1 = max(int(cx - radius) - 1, 0), min(int(cx + radius) + 2, image.shape[1])
    y0, y1 = max(int(cy - radius) - 1, 0), min(int(cy + radius) + 2, image.shape[0])
    yy, xx = np.mgrid[y0:y1, x0:x1]
    distance = np.hypot(xx - cx, yy - cy)
    window = image[y0:y1, x0:x1]
    if rim:
        window[distance <= radius] = RIM
        window[distance <= radius - 1.5] = colour
    else:
        window[distance <= radius] = colour


def _spike(image: np.ndarray, point: int, colour: np.ndarray) -> None:
    """The triangle of ``point``, from its edge of the board towards the middle."""
    cx = _column_x(point)
    top = point >= 13
    ys = np.arange(SPIKE)
    rows = MARGIN + ys if top else HEIGHT - MARGIN - 1 - ys
    half = (POINT / 2) * (1 - ys / SPIKE)
    xs = np.arange(cx - POINT // 2, cx + POINT // 2)
    inside = np.abs(xs[None, :] + 0.5 - cx) <= half[:, None]
    for row, mask in zip(rows, inside):
        image[row, xs[mask]] = colour


def _stack(image: np.ndarray, cx: float, count: int, colour: np.ndarray, from_top: bool, limit: float = SPIKE) -> None:
    """``count`` checkers stacked from the board's top or bottom edge, closer together when more than five."""
    if count <= 0:
        return
    step = min(2.0 * RADIUS, (limit - 2 * RADIUS) / max(count - 1, 1))
    for k in range(count):
        offset = MARGIN + RADIUS + k * step
        _disc(image, cx, offset if from_top else HEIGHT - offset, RADIUS, colour)


def _die(image: np.ndarray, cx: int, cy: int, value: int) -> None:
    half = 11
    image[cy - half : cy + half, cx - half : cx + half] = DIE
    for dy, dx in FACES[value]:
        _disc(image, cx + dx * 6, cy + dy * 6, 2.2, PIP, rim=False)


def draw_board(board: np.ndarray, dice: tuple[int, int] | None = None, variant: Variant = BACKGAMMON) -> np.ndarray:
    """(HEIGHT, WIDTH, 3) = (300, 376, 3) uint8: ``board`` (26,) of ``variant`` in the view of the side on roll, with
    its ``dice`` if it has rolled."""
    board = variant.validate_board(board)
    image = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    image[:] = FRAME
    image[MARGIN : HEIGHT - MARGIN, MARGIN : MARGIN + 2 * HALF + BAR] = FELT
    tray_x = MARGIN + 2 * HALF + BAR + MARGIN
    image[MARGIN : HEIGHT - MARGIN, tray_x : tray_x + TRAY] = FELT
    bar_x = MARGIN + HALF
    image[MARGIN : HEIGHT - MARGIN, bar_x : bar_x + BAR] = FRAME
    for point in range(1, 25):
        _spike(image, point, POINT_COLOURS[point % 2])
        count = int(board[point])
        _stack(image, _column_x(point), abs(count), MOVER if count > 0 else OPPONENT, from_top=point >= 13)
    middle = bar_x + BAR / 2
    _stack(image, middle, int(board[25]), MOVER, from_top=False, limit=HEIGHT / 2 - MARGIN - 4)
    _stack(image, middle, -int(board[0]), OPPONENT, from_top=True, limit=HEIGHT / 2 - MARGIN - 4)
    mover_off, opponent_off = borne_off(board)
    for k in range(mover_off):
        y = HEIGHT - MARGIN - 3 - 7 * (k + 1)
        image[y : y + 6, tray_x + 3 : tray_x + TRAY - 3] = MOVER
    for k in range(opponent_off):
        y = MARGIN + 3 + 7 * k
        image[y : y + 6, tray_x + 3 : tray_x + TRAY - 3] = OPPONENT
    if dice is not None:
        right = bar_x + BAR + HALF // 2
        for k, value in enumerate(dice):
            _die(image, right - 16 + 32 * k, HEIGHT // 2, int(value))
    return image
