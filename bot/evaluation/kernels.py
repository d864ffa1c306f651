"""Compiled loops (numba) for the network's big batches.

Loaded by ``bot.evaluation.compiled`` only for a batch big enough to pay for numba's import,
so a cold command line never loads it. Compiled on first use and cached
on disk, in the project's cache directory (``engine.compiled.cache_dir``).

The cache is the engine's sealed one (``engine.kernels.sealed_njit``): every file behind a
SHA-256 of its content; a file that fails the check or fails to load (damaged, or written
by something else) is deleted with a warning on stderr and the kernel is compiled afresh
and cached again.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba.core import types
from numba.extending import intrinsic

from bot.evaluation.storage import warn
from engine.kernels import leading_zeros, sealed_njit

_compiled = functools.partial(sealed_njit, warn)  # the engine's sealed cache, healing reported on stderr
# The network's float32 loops: sums in any order, and no zero check on a division (numpy's error model), which
# would keep a loop that divides from running in SIMD.
_network = functools.partial(_compiled, fastmath=True, boundscheck=False, error_model="numpy")


# tanh(x) ~ x * P(x^2) / Q(x^2) on |x| <= 9 (tanh(9) is 1 in float32), a rational fit of this project's
# (least squares reweighted towards the largest error): within 4e-7 of tanh in float32, as np.tanh's float32
# is within 6e-8. Plain arithmetic, so the compiler runs a layer's units in SIMD, which a call of tanh does not.
_TANH_LIMIT = np.float32(9.0)
_TANH_P = (0.99999988079071, 0.13373254239559, 0.0034866482019424, 2.0472909454838e-05, 1.3185696978724e-08)
_TANH_Q = (1.0, 0.46706551313400, 0.025842232629657, 0.00032714931876399, 7.7032706258251e-07)
_P0, _P1, _P2, _P3, _P4 = (np.float32(c) for c in _TANH_P)
_Q0, _Q1, _Q2, _Q3, _Q4 = (np.float32(c) for c in _TANH_Q)


@_network(nogil=True)
def squash(x: np.ndarray) -> None:  # pragma: no cover - compiled; checked against np.tanh in tests/test_network.py
    """tanh of a layer's units ``x`` (H,) float32, in place, by the rational fit above."""
    for h in range(x.shape[0]):
        v = min(max(x[h], -_TANH_LIMIT), _TANH_LIMIT)
        v2 = v * v
        top = (((_P4 * v2 + _P3) * v2 + _P2) * v2 + _P1) * v2 + _P0
        bottom = (((_Q4 * v2 + _Q3) * v2 + _Q2) * v2 + _Q1) * v2 + _Q0
        x[h] = v * top / bottom


@_network(nogil=True)
def _first_layer(
    boards: np.ndarray,
    b: int,
    table: np.ndarray,
    global_features: np.ndarray,
    global_weight: np.ndarray,
    bias: np.ndarray,
    on_roll: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Write into ``out`` (H,) board ``b``'s first-layer pre-activation (see ``embedding_bag``).

    ``on_roll`` (H,) holds the bias and the side on roll's rows of board ``b - 1``, and is
    summed again only where that side's checkers differ.
    """
    hidden = out.shape[0]
    same = b > 0
    if same:
        for slot in range(26):
            if max(boards[b, slot], 0) != max(boards[b - 1, slot], 0):
                same = False
                break
    if not same:
        for h in range(hidden):
            on_roll[h] = bias[h]
        for slot in range(26):
            count = boards[b, slot]
            if count > 0:
                row = slot * 31 + count + 15
                for h in range(hidden):
                    on_roll[h] += table[row, h]
    for h in range(hidden):
        out[h] = on_roll[h]
    for g in range(global_features.shape[1]):
        value = global_features[b, g]
        if value != 0.0:
            for h in range(hidden):
                out[h] += value * global_weight[g, h]
    for slot in range(26):
        count = boards[b, slot]
        if count < 0:
            row = slot * 31 + count + 15
            for h in range(hidden):
                out[h] += table[row, h]


@_network(nogil=True)
def _five(
    x: np.ndarray,
    shift: np.float32,
    weight: np.ndarray,
    bias: np.ndarray,
    cumulative: np.ndarray,
    six: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Write into ``out`` (5,) the five probabilities of the output layer's softmax over (x + shift) @ weight.T + bias
    for one board's last hidden layer ``x`` (H,); ``six`` (6,) is working room (see ``output_probabilities``)."""
    top = np.float32(-np.inf)
    for k in range(6):
        acc = np.float32(0.0)
        for h in range(x.shape[0]):
            acc += (x[h] + shift) * weight[k, h]
        six[k] = acc + bias[k]
        top = max(top, six[k])
    total = np.float32(0.0)
    for k in range(6):
        six[k] = np.exp(six[k] - top)
        total += six[k]
    for j in range(5):
        value = np.float32(0.0)
        for k in range(6):
            value += six[k] * cumulative[k, j]
        out[j] = min(max(value / total, np.float32(0.0)), np.float32(1.0))


@_network(nogil=True)
def embedding_bag(
    boards: np.ndarray,
    table: np.ndarray,
    global_features: np.ndarray,
    global_weight: np.ndarray,
    bias: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled; checked against the numpy path in tests/test_network.py
    """Write into ``out`` (B, H) the first layer's pre-activation of boards (B, 26) int8.

    ``table`` (26 * 31, H) holds the layer's response to each slot value (row
    ``slot * 31 + value + 15``, zero for an empty slot, which is skipped), ``global_weight``
    (G, H) its rows for the global features (B, G). A board is about 16 table rows and G
    scaled rows added to the bias: a few thousand additions, against the dense product's
    tens of thousands of multiply-adds. The side on roll's rows are summed once for a run
    of boards where its checkers stay put (the afterstates of one position, hits aside).
    """
    on_roll = np.empty(out.shape[1], dtype=np.float32)
    for b in range(boards.shape[0]):
        _first_layer(boards, b, table, global_features, global_weight, bias, on_roll, out[b])


@_network(nogil=True)
def output_probabilities(
    x: np.ndarray,
    shift: np.float32,
    weight: np.ndarray,
    bias: np.ndarray,
    cumulative: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled; checked against the numpy path in tests/test_network.py
    """Write into ``out`` (B, 5) the five probabilities of the output layer's softmax over
    (x + shift) @ weight.T + bias.

    ``weight`` (6, H) is the output layer, too narrow for BLAS to run at speed; ``shift``
    the hidden activation's constant (1 for a sigmoid served as 1 + tanh), added here
    instead of in a pass over ``x``; ``cumulative`` (6, 5) sums the six outcomes into the
    five (``bot.equity.outcomes.CUMULATIVE``), each clipped to [0, 1].
    """
    six = np.empty(6, dtype=np.float32)
    for b in range(x.shape[0]):
        _five(x[b], shift, weight, bias, cumulative, six, out[b])


@_network(nogil=True)
def tanh_network(
    boards: np.ndarray,
    table: np.ndarray,
    global_features: np.ndarray,
    global_weight: np.ndarray,
    bias: np.ndarray,
    shift: np.float32,
    weight: np.ndarray,
    output_bias: np.ndarray,
    cumulative: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled; checked against the numpy path in tests/test_network.py
    """Write into ``out`` (B, 5) the five probabilities of a network of one tanh (or 1 + tanh) hidden layer:
    ``embedding_bag``, ``squash`` and ``output_probabilities`` a board at a time, whose hidden layer stays in
    cache instead of three passes over a (B, H) array."""
    hidden = table.shape[1]
    on_roll = np.empty(hidden, dtype=np.float32)
    x = np.empty(hidden, dtype=np.float32)
    six = np.empty(6, dtype=np.float32)
    for b in range(boards.shape[0]):
        _first_layer(boards, b, table, global_features, global_weight, bias, on_roll, x)
        squash(x)
        _five(x, shift, weight, output_bias, cumulative, six, out[b])


@_compiled(nogil=True, boundscheck=False)
def extended_globals(boards: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Write into ``out`` (B, 5) float32 ``bot.evaluation.encoding``'s extended globals of boards (B, 26),
    side on roll's view.

    Borne off / 15 (mover, opponent), the race flag, rearmost checkers / 25: one pass over
    each board's slots instead of numpy's dozen passes over the batch.
    """
    for b in range(boards.shape[0]):
        mine = theirs = mover = 0
        opponent = -1
        for slot in range(26):
            count = boards[b, slot]
            if count > 0:
                mine += count
                mover = slot
            elif count < 0:
                theirs -= count
                if opponent < 0:
                    opponent = slot
        back = 25 - opponent if opponent >= 0 else 0
        out[b, 0] = np.float32(15 - mine) / np.float32(15.0)
        out[b, 1] = np.float32(15 - theirs) / np.float32(15.0)
        out[b, 2] = 1.0 if mover + back <= 25 else 0.0
        out[b, 3] = np.float32(mover) / np.float32(25.0)
        out[b, 4] = np.float32(back) / np.float32(25.0)


@_compiled(nogil=True, boundscheck=False)
def race_features(
    boards: np.ndarray,
    binomial: np.ndarray,
    all_off: np.ndarray,
    one_off: np.ndarray,
    average_roll: float,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Write into ``out`` (B, 13) float32 ``bot.evaluation.race_features.race_features`` of boards (B, 26), side on
    roll's view, with the one-sided database's expected rolls ``all_off`` and ``one_off`` and the binomial table
    ``binomial`` (32, 7) of ``bot.evaluation.bearoff.home_index``: one pass over each board's slots."""
    home = np.zeros(6, dtype=np.int64)
    sides = np.zeros(10, dtype=np.float64)
    for b in range(boards.shape[0]):
        for side in range(2):
            outside = to_home = crossovers = on_board = 0
            for p in range(1, 26):
                count = max(boards[b, p], 0) if side == 0 else max(-boards[b, 25 - p], 0)
                on_board += count
                if p <= 6:
                    home[p - 1] = count
                else:
                    outside += count
                    to_home += count * (p - 6)
                    crossovers += count * ((p - 1) // 6)
            home[5] += outside
            index = from_back = 0
            for k in range(1, 7):
                from_back += home[6 - k]
                index += binomial[from_back + k - 1, k]
            rolls = to_home / average_roll + all_off[index]
            none_off = on_board == 15
            first = to_home / average_roll + one_off[index] if none_off else 0.0
            column = 5 * side
            sides[column] = rolls / 10.0
            sides[column + 1] = first / 10.0
            sides[column + 2] = 1.0 if none_off else 0.0
            sides[column + 3] = outside / 15.0
            sides[column + 4] = crossovers / 45.0
        for c in range(10):
            out[b, c] = np.float32(sides[c])
        out[b, 10] = np.float32(np.float32(sides[5]) - np.float32(sides[0]) + np.float32(0.05))
        out[b, 11] = np.float32(np.float32(sides[6]) - np.float32(sides[0]) + np.float32(0.05))
        out[b, 12] = np.float32(np.float32(sides[5]) - np.float32(sides[1]) + np.float32(0.05))


# Bit masks over one side's points 0..25 (bit s: point s, 25 the bar), as bot.evaluation.features uses them.
_ALL = (1 << 26) - 1
_BAR_BIT = 1 << 25
_BOARD = _ALL & ~_BAR_BIT


def _ctpop(typingctx: Any, mask: Any) -> Any:  # pragma: no cover - compiled
    """Set bits of a 64-bit mask: LLVM's ctpop (one instruction where the CPU has it)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


_popcount: Any = intrinsic(_ctpop)


@_compiled(nogil=True)
def _highest(points: int) -> int:  # pragma: no cover - compiled
    """The highest point of a mask over points, 0 for an empty mask."""
    return 63 - leading_zeros(points) if points else 0


@_compiled(nogil=True)
def _open_at(open_: int, distance: int) -> int:  # pragma: no cover - compiled
    """Sources s whose point s - distance is open to own (points below 1: borne off, open)."""
    return ((open_ << distance) | ((1 << distance) - 1)) & _ALL


@_compiled(nogil=True)
def _half_hits(own: np.ndarray, other_seen: np.ndarray, out: np.ndarray, column: int) -> None:  # pragma: no cover
    """Own's pip loss, hit one, hit two (``bot.evaluation.features._roll_hits`` summed over the 36 rolls)
    into out[column:].

    ``own`` (26,) own's checkers on own's points, ``other_seen`` (26,) the other side's
    checkers on own's points; the rules and bit masks are ``bot.evaluation.features``' (its numpy
    version is the reference the tests compare with), one board at a time.
    """
    home_points = 0
    for point in range(1, 7):
        home_points += own[point] > 0
    low_blots = home_points >= 3  # blots on own's points 1 and 2 count only then
    blot = open_ = willing = single = 0
    for point in range(26):
        seen, mine = other_seen[point], own[point]
        blot |= (seen == 1 and 0 < point < 25 and (point > 2 or low_blots)) << point
        open_ |= (seen < 2) << point
        willing |= (point > 0 and mine > 0 and not (point <= 6 and mine == 2)) << point
        single |= (mine == 1) << point
    pip_loss = hit1 = hit2 = 0
    if blot == 0:
        out[column] = out[column + 1] = out[column + 2] = 0.0
        return
    bar = own[25]
    free, one_up = bar == 0, bar == 1
    within_12 = 0  # sources 1..12 pips behind a blot: a non-double's shots come from them
    for distance in range(1, 13):
        within_12 |= blot << distance
    for a in range(2, 7 if willing & within_12 & _ALL else 2):  # non-doubles a-b, a > b, each 2 of the 36 rolls
        for b in range(1, a):
            blot_a, blot_b, blot_ab = (blot << a) & _ALL, (blot << b) & _ALL, (blot << (a + b)) & _ALL
            board_a = free or (one_up and (open_ >> (25 - b)) & 1 == 1)
            board_b = free or (one_up and (open_ >> (25 - a)) & 1 == 1)
            shots_a = willing & blot_a & (_ALL if board_a else _BAR_BIT)
            shots_b = willing & blot_b & (_ALL if board_b else _BAR_BIT)
            combined = (_BOARD if free else 0) | (_BAR_BIT if one_up else 0)
            shots_ab = willing & blot_ab & (_open_at(open_, a) | _open_at(open_, b)) & combined
            if shots_a == 0 and shots_b == 0 and shots_ab == 0:
                continue  # no shot (a hit on the way lands on a blot, so it is one of shots_ab)
            best = _highest((shots_a >> a) | (shots_b >> b) | (shots_ab >> (a + b)))
            n_a, n_b = _popcount(shots_a), _popcount(shots_b)
            bar_a, bar_b = shots_a >> 25, shots_b >> 25
            shift = a - b
            if free:
                pairs = n_a * n_b - _popcount((shots_a >> shift) & shots_b) - _popcount(shots_a & shots_b & single)
            elif one_up:
                same_as_bar_a = (shots_b >> (25 - shift)) & 1
                pairs = bar_a * (n_b - bar_b - same_as_bar_a) + bar_b * (n_a - bar_a)
            else:
                pairs = bar_a & bar_b
            on_way = willing & blot_ab & (blot_a | blot_b) & combined
            pip_loss += 2 * best
            hit1 += 2 if best > 0 else 0
            hit2 += 2 if pairs > 0 or on_way != 0 else 0
    free_dice = max(4 - bar, 0)
    for d in range(1, 7):  # doubles, each 1 of the 36
        if bar > 0 and (open_ >> (25 - d)) & 1 == 0:
            continue  # the bar checkers cannot enter: no shot
        if willing & (((blot << d) | (blot << 2 * d) | (blot << 3 * d) | (blot << 4 * d)) & _ALL) == 0:
            continue  # no checker stands 1-4 steps of d behind a blot
        path = _ALL
        seen = twice = 0
        # Blot points some shot hits at cost 0..4 (k steps from the board cost k, k - 1 from the bar).
        cost0 = cost1 = cost2 = cost3 = cost4 = 0
        for k in range(1, 5):
            distance = k * d
            if k > 1:
                path &= _open_at(open_, (k - 1) * d)
            shots = willing & ((blot << distance) & _ALL) & path
            from_board = shots & _BOARD if k <= free_dice else 0
            from_bar = shots & _BAR_BIT if k - 1 <= free_dice else 0
            allowed = from_board | from_bar
            twice |= seen & allowed
            seen |= allowed
            hit_board, hit_bar = from_board >> distance, from_bar >> distance
            if k == 1:
                cost1 |= hit_board
                cost0 |= hit_bar
            elif k == 2:
                cost2 |= hit_board
                cost1 |= hit_bar
            elif k == 3:
                cost3 |= hit_board
                cost2 |= hit_bar
            else:
                cost4 |= hit_board
                cost3 |= hit_bar
        cheapest = second = 99
        reach = 0
        for cost, hits in enumerate((cost0, cost1, cost2, cost3, cost4)):
            reach |= hits
            hit = _popcount(reach)
            if hit >= 1 and cheapest == 99:
                cheapest = cost
            if hit >= 2 and second == 99:
                second = cost
        best = _highest(reach)
        pip_loss += best
        hit1 += 1 if best > 0 else 0
        hit2 += 1 if cheapest + second <= free_dice or twice != 0 else 0
    out[column] = pip_loss / (12.0 * 36.0)
    out[column + 1] = hit1 / 36.0
    out[column + 2] = hit2 / 36.0


@_compiled(nogil=True)
def _split_sides(
    board: np.ndarray, mover: np.ndarray, opponent: np.ndarray, mover_seen: np.ndarray, opponent_seen: np.ndarray
) -> None:  # pragma: no cover - compiled
    """One board (26,), mover's view, as each side's checkers on its own points (``mover``, ``opponent``) and on
    the other side's points (``mover_seen``: the mover's checkers on the opponent's points, and the reverse)."""
    for slot in range(26):
        mover[slot] = max(board[slot], 0)
        opponent[slot] = max(-board[25 - slot], 0)
    for slot in range(26):
        mover_seen[slot] = mover[25 - slot]
        opponent_seen[slot] = opponent[25 - slot]


@_compiled(nogil=True)
def hit_features(boards: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Write into ``out`` (B, 6) float32 ``bot.evaluation.features.hit_features`` of boards (B, 26) int8, mover's view.

    Both sides' shots (the mover's at the opponent's blots, then the opponent's at the
    mover's), zero in a race.
    """
    mover = np.empty(26, dtype=np.int64)
    opponent = np.empty(26, dtype=np.int64)
    mover_seen = np.empty(26, dtype=np.int64)
    opponent_seen = np.empty(26, dtype=np.int64)
    for b in range(boards.shape[0]):
        _split_sides(boards[b], mover, opponent, mover_seen, opponent_seen)
        mover_back = opponent_back = 0
        for slot in range(1, 26):
            if mover[slot] > 0:
                mover_back = slot
            if opponent[slot] > 0:
                opponent_back = slot
        if mover_back + opponent_back <= 25:
            for column in range(6):
                out[b, column] = 0.0
            continue
        _half_hits(mover, opponent_seen, out[b], 0)
        _half_hits(opponent, mover_seen, out[b], 3)


@_compiled(nogil=True)
def _runner_escapes(blocked: np.ndarray, escapes: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    """``bot.evaluation.features.runner_escapes`` of one board: out[p], the escapes of a lone runner on p.

    ``blocked`` (26,) bool in the runner's numbering (points 1..24 count; below 1 is open).
    """
    for p in range(26):
        mask = 0
        for i in range(12):
            point = p - 1 - i
            if 1 <= point <= 24 and blocked[point]:
                mask |= 1 << i
        out[p] = escapes[mask]


@_compiled(nogil=True)
def _timing(own: np.ndarray, contact_point: int) -> int:  # pragma: no cover - compiled
    """``bot.evaluation.features._timing`` of one side."""
    pips = own[25] * 24
    spare = own[25]
    keep_cut = max(contact_point, 12)
    for point in range(24, 6, -1):
        count = own[point]
        movable = (count - 2 if count >= 2 else count) if point > keep_cut else count
        pips += (point - 1) * movable
        spare += movable
    for point in range(6, 0, -1):
        count = own[point]
        extra = max(count - 2, 0)
        need = max(2 - count, 0)
        taken = need if need > 0 and spare >= need else 0
        pips += (point - 1) * (extra - taken)
        spare += extra - taken
    return max(pips, 0)


@_compiled(nogil=True)
def _half_contact(
    own: np.ndarray,
    other: np.ndarray,
    other_seen: np.ndarray,
    escapes: np.ndarray,
    enter_one: np.ndarray,
    enter_many: np.ndarray,
    blocked: np.ndarray,
    work: np.ndarray,
    out: np.ndarray,
    column: int,
) -> None:  # pragma: no cover - compiled
    """``bot.evaluation.features.half_features`` of one board into out[column:column + 24], in its column order.

    ``own`` and ``other`` (26,) each side's checkers on its own points, ``other_seen`` the other's on
    own's points; ``blocked`` (26,) bool and ``work`` (2, 26) scratch for the runners' escapes.
    """
    own_rear = other_rear = 0
    checkers = 0
    for p in range(1, 26):
        checkers += own[p]
        if own[p] > 0:
            own_rear = p
        if other[p] > 0:
            other_rear = p
    contact_point = 25 - other_rear
    # Race and timing.
    break_contact = free_pip = 0
    for p in range(26):
        if p > contact_point:
            break_contact += own[p] * max(p - contact_point + 1, 0)
        elif p < contact_point:
            free_pip += own[p] * p
    off = 15 - checkers
    out[column] = break_contact / 167.0
    out[column + 1] = free_pip / 100.0
    out[column + 2] = _timing(own, contact_point) / 100.0
    out[column + 3] = min(max(off, 0), 5) / 5.0
    out[column + 4] = min(max(off - 5, 0), 5) / 5.0
    out[column + 5] = min(max(off - 10, 0), 5) / 5.0
    # Structure.
    back_anchor = lowest_home = highest_outfield = anchors_there = 0
    for p in range(1, 25):
        if own[p] >= 2:
            back_anchor = p
            if p >= 19:
                anchors_there += 1
                if lowest_home == 0:
                    lowest_home = p
            elif p >= 13:
                highest_outfield = p
    forward = 25 - lowest_home if lowest_home else 25 - highest_outfield if highest_outfield else 12
    checkers_there = 0
    for p in range(19, 26):
        checkers_there += own[p]
    upper = upper_checkers = weighted = total = 0
    for point in range(24, 0, -1):
        if own[point] >= 2:
            if upper > 0:
                gap = upper - point
                weighted += (11 if gap <= 6 else max(13 - gap, 0)) * upper_checkers
                total += upper_checkers
            upper, upper_checkers = point, own[point]
    mean = 0.0
    for p in range(26):
        mean += own[p] * p
    mean /= max(checkers, 1)
    spread = 0.0
    behind = 0
    for p in range(26):
        if own[p] > 0 and p > mean:
            spread += own[p] * (p - mean) ** 2
            behind += own[p]
    out[column + 6] = max(own_rear - 1, 0) / 24.0
    out[column + 7] = (back_anchor - 1) / 24.0
    out[column + 8] = forward / 6.0
    out[column + 9] = 1.0 - weighted / (11.0 * total) if total > 0 else 0.0
    out[column + 10] = (checkers_there - 3) / 4.0 if anchors_there >= 2 else 0.0
    out[column + 11] = checkers_there / 8.0 if anchors_there == 1 else 0.0
    out[column + 12] = spread / max(behind, 1) / 400.0
    # Shots.
    _half_hits(own, other_seen, out, column + 13)
    # Escapes: other's runners against own's points (other's numbering), own's against other's.
    for x in range(26):
        blocked[x] = own[25 - x] >= 2
    _runner_escapes(blocked, escapes, work[0])
    for x in range(26):
        blocked[x] = other_seen[x] >= 2
    _runner_escapes(blocked, escapes, work[1])
    fewest_reach = fewest_home = 36
    for p in range(16, 25):
        fewest_home = min(fewest_home, work[0, p])
        if p <= other_rear:
            fewest_reach = min(fewest_reach, work[0, p])
    if other_rear == 25:
        fewest_reach = min(fewest_reach, work[0, 25])
    mobility = 0
    for p in range(7, 26):
        mobility += own[p] * (p - 6) * work[1, p]
    acontain = (36 - fewest_reach) / 36.0
    contain = (36 - fewest_home) / 36.0
    out[column + 16] = work[0, other_rear] / 36.0
    out[column + 17] = acontain
    out[column + 18] = acontain**2
    out[column + 19] = contain
    out[column + 20] = contain**2
    out[column + 21] = mobility / 3600.0
    # Entering from the bar.
    closed = closed_points = 0
    for d in range(1, 7):
        if other[d] >= 2:
            closed |= 1 << (d - 1)
            closed_points += 1
    bar = own[25]
    loss = 0 if bar == 0 else enter_one[closed] if bar == 1 else enter_many[closed]
    out[column + 22] = loss / (36.0 * 49.0 / 6.0)
    out[column + 23] = (closed_points / 6.0) ** 2


@_compiled(nogil=True)
def contact_features(
    boards: np.ndarray, escapes: np.ndarray, enter_one: np.ndarray, enter_many: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Write into ``out`` (B, 48) float32 ``bot.evaluation.features.contact_features`` of boards (B, 26) int8,
    mover's view, with its escape and entering tables: the mover's half, then the opponent's."""
    mover = np.empty(26, dtype=np.int64)
    opponent = np.empty(26, dtype=np.int64)
    mover_seen = np.empty(26, dtype=np.int64)
    opponent_seen = np.empty(26, dtype=np.int64)
    blocked = np.empty(26, dtype=np.bool_)
    work = np.empty((2, 26), dtype=np.int64)
    row = np.empty(48, dtype=np.float64)
    for b in range(boards.shape[0]):
        _split_sides(boards[b], mover, opponent, mover_seen, opponent_seen)
        _half_contact(mover, opponent, opponent_seen, escapes, enter_one, enter_many, blocked, work, row, 0)
        _half_contact(opponent, mover, mover_seen, escapes, enter_one, enter_many, blocked, work, row, 24)
        for c in range(48):
            out[b, c] = np.float32(row[c])
