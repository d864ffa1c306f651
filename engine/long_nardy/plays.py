"""Legal plays of one long nardy position, with the checker steps: the slow, checked path.

The batched generator (``engine.long_nardy.movegen``) returns boards only; this module
works on one board at a time, written to be read, and also says how the checkers
moved (``engine.plays.Play`` and ``Step``, so ``engine.notation.format_play`` writes
them: ``24/18(2)``, ``6/off``). Every play is searched step by step in every order of
the dice, each step checked against R4-R7 and R9-R11 of docs/long_nardy_rules.md, and the plays
are then chosen by R8 (most dice, else the larger die).

Boards are in the mover's view (``engine.long_nardy.board``); steps and afterstates
too. A step's destination 0 is off; there is no bar and no hit.

>>> from engine.long_nardy.board import START
>>> from engine.notation import format_play
>>> [format_play(p) for p in legal_plays(START, "33")]
['24/18(2)', '24/15 24/21']
>>> [format_play(p) for p in legal_plays(START, "31")]
['24/20']
"""

from __future__ import annotations

import numpy as np

from engine.board import Dice, validate_dice
from engine.long_nardy.board import CHECKERS, HEAD, illegal_block, validate_board
from engine.long_nardy.rules import DEFAULT_RULES, Rules
from engine.plays import OFF, Play, Step, SearchNode, apply_step, lawful_plays

__all__ = ["Play", "Step", "head_allowance", "legal_plays"]


def head_allowance(head_start: int, d1: int, d2: int, rules: Rules) -> int:
    """How many checkers may leave the head this turn (R6, R7).

    Two on the side's first turn (all fifteen still on the head) with one of the
    rules' head doubles, else one.
    """
    first_turn = head_start == CHECKERS
    return 2 if first_turn and d1 == d2 and d1 in rules.head_doubles else 1


def _single_steps(board: list[int], die: int, may_leave_head: bool) -> list[Step]:
    """Every step of one checker by ``die`` that lands legally (R5, R6, R11), highest source first."""
    all_home = all(board[p] <= 0 for p in range(7, 25))
    steps = []
    for src in range(HEAD, 0, -1):
        if board[src] <= 0 or (src == HEAD and not may_leave_head):
            continue
        target = src - die
        if target >= 1:
            if board[target] >= 0:  # a point holding any opponent checker is closed
                steps.append(Step(src, target, False))
        elif all_home and (target == 0 or not any(board[p] > 0 for p in range(src + 1, 7))):
            steps.append(Step(src, OFF, False))
    return steps


def _search(board: list[int], d1: int, d2: int, rules: Rules) -> list[SearchNode]:
    """Every node reachable by playing the dice one step at a time, in every order, the empty play first.

    With ``block_check == "step"`` a step that leaves a forbidden block ends its line.
    A (board, dice left) already reached is not searched again: what follows it is the same.
    """
    head_start = board[HEAD]
    allowed = head_allowance(head_start, d1, d2, rules)
    root = SearchNode((), (), board)
    nodes = [root]
    seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    orders = [(d1,) * 4] if d1 == d2 else [(max(d1, d2), min(d1, d2)), (min(d1, d2), max(d1, d2))]

    # A step that lands on a point the mover already holds holds no new point, so it cannot form a block
    # that the board before it lacked: only steps to a new point, or any step from a board already
    # holding a forbidden block, need the check.
    check_every_step = illegal_block(board)

    def expand(node: SearchNode, left: tuple[int, ...]) -> None:
        if not left:
            return
        may_leave_head = head_start - node.board[HEAD] < allowed
        for step in _single_steps(node.board, left[0], may_leave_head):
            after = apply_step(node.board, step)
            new_point = step.dst != OFF and node.board[step.dst] <= 0
            if rules.block_check == "step" and (new_point or check_every_step) and illegal_block(after):
                continue
            key = (tuple(after), left[1:])
            if key in seen:
                continue
            seen.add(key)
            child = SearchNode(node.steps + (step,), node.dice + (left[0],), after)
            nodes.append(child)
            expand(child, left[1:])

    for order in orders:
        expand(root, order)
    return nodes


def legal_plays(board: np.ndarray, dice: Dice, rules: Rules = DEFAULT_RULES) -> list[Play]:
    """Every legal play of ``dice`` on ``board`` (mover's view), one per distinct afterstate.

    R8: as many dice as possible among the plays that obey the rules at every step
    (or, with ``block_check == "turn"``, whose final board has no forbidden block);
    when only one of two different dice can be played, the larger if it can. A roll
    that cannot be played gives one Play with no steps and the board unchanged.
    """
    d1, d2 = validate_dice(dice)
    b = validate_board(board)
    nodes = _search([int(x) for x in b], d1, d2, rules)
    if rules.block_check == "turn":
        nodes = [n for n in nodes if not n.steps or not illegal_block(n.board)]
    return lawful_plays(nodes, d1, d2)
