"""Bear-off databases: hand-checked cases, consistency, the cache, and GNU Backgammon's databases."""

from __future__ import annotations

import os

import numpy as np
import pytest

from bot.evaluation import bearoff as bo
from engine import START


def home(*counts: int) -> int:
    """Index of the home board with ``counts`` on points 1, 2, ... (the rest empty)."""
    return int(bo.home_index(np.array(list(counts) + [0] * (6 - len(counts)))))


@pytest.fixture(scope="module")
def small_one() -> bo.OneSided:
    return bo.build_one_sided(6, progress=False)


@pytest.fixture(scope="module")
def small_two() -> bo.TwoSided:
    return bo.build_two_sided(4, progress=False)


@pytest.fixture(scope="module")
def full_one(tmp_path_factory) -> bo.OneSided:
    """The full 15-checker one-sided database (seconds to build, so built once per module), through a temporary
    cache."""
    return bo.one_sided(15, directory=tmp_path_factory.mktemp("cache"), progress=False)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Every test gets its own cache folder and in-process cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(bo, "_loaded", {})


# --- indexing ---------------------------------------------------------------------------


def test_index_is_a_perfect_rank_with_small_prefixes():
    counts = bo._all_counts(15)
    assert len(counts) == 54264 == bo.positions_count(15)
    assert np.array_equal(bo.home_index(counts), np.arange(len(counts)))
    assert np.array_equal(bo.home_counts(np.arange(len(counts))), counts)
    # Positions of up to n checkers come first, so smaller databases are prefixes.
    for n in range(16):
        assert counts[: bo.positions_count(n)].sum(axis=1).max() == n
        assert counts[bo.positions_count(n) :].sum(axis=1).min(initial=99) > n


def test_moves_lower_the_index():
    segment, child = bo.turn_children(4)
    root = segment // 21
    assert np.all((child < root) | (root == 0))


# --- one-sided --------------------------------------------------------------------------


def test_hand_checked_distributions(small_one):
    rolls = small_one.rolls
    assert rolls[0, 0] == 1.0  # nothing left: 0 rolls
    np.testing.assert_allclose(rolls[home(1)][:3], [0, 1, 0])  # one on the 1 point: one roll
    np.testing.assert_allclose(rolls[home(0, 0, 0, 0, 0, 1)][:3], [0, 27 / 36, 9 / 36])  # 11 21 31 41 32 miss
    # Two on the 6 point: off in one roll only with 33, 44, 55, 66.
    assert rolls[home(0, 0, 0, 0, 0, 2), 1] == pytest.approx(4 / 36)
    # Two on the 1 point: every roll; three: doubles only, else two rolls.
    np.testing.assert_allclose(rolls[home(2)][:3], [0, 1, 0])
    np.testing.assert_allclose(rolls[home(3)][:3], [0, 6 / 36, 30 / 36])


def test_distributions_are_consistent(small_one):
    for table in (small_one.rolls, small_one.first_off):
        np.testing.assert_allclose(table.sum(axis=1), 1.0, atol=1e-12)
        assert table.min() >= 0.0
    counts = bo._all_counts(6)
    mean = small_one.mean_rolls()
    # One more checker never makes it quicker. (A checker one point further back sometimes does:
    # 2 on the 1 point and 1 on the 6 needs 1.951 rolls, 1 each on the 1, 2 and 6 points 1.942.)
    for point in range(6):
        more = counts.copy()
        more[:, point] += 1
        ok = more.sum(axis=1) <= 6
        assert np.all(mean[bo.home_index(more[ok])] >= mean[ok] - 1e-12)
    assert mean[home(2, 0, 0, 0, 0, 1)] > mean[home(1, 1, 0, 0, 0, 1)]


def test_first_off_distribution(small_one):
    counts = bo._all_counts(6)
    single = counts.sum(axis=1) == 1
    np.testing.assert_allclose(small_one.first_off[single], small_one.rolls[single])  # one checker: the same
    only_on_the_one = (counts[:, 0] > 0) & (counts[:, 1:].sum(axis=1) == 0)  # every roll bears one off
    np.testing.assert_allclose(small_one.first_off[only_on_the_one, 1], 1.0)
    # One on the 1 point and one on the 6: a 1, 6 pips or a double bear one off, only 32 fails.
    assert small_one.first_off[home(1, 0, 0, 0, 0, 1), 1] == pytest.approx(34 / 36)
    assert small_one.first_off[home(0, 0, 0, 0, 0, 6), 1] == pytest.approx(17 / 36)  # a 6, 51, 42, 33 or 22


def test_quantized_distributions_sum_to_65535(small_one):
    stored = bo.quantize(small_one.rolls)
    assert np.all(stored.astype(np.int64).sum(axis=1) == 65535)
    assert np.abs(stored / 65535.0 - small_one.rolls).max() < 1e-4


# --- two-sided --------------------------------------------------------------------------


def test_two_sided_hand_checked(small_two):
    one, six = home(1), home(0, 0, 0, 0, 0, 1)
    assert small_two.win[one, one] == 1.0
    assert small_two.win[six, one] == pytest.approx(27 / 36)
    # The opponent's last roll at 25%: doubling gains nothing, every cube value equals cubeless.
    for table in (small_two.centred, small_two.owned, small_two.unavailable):
        assert table[six, one] == pytest.approx(0.5)
    assert small_two.win[1:, 0].max() == 0.0 and small_two.win[0].min() == 1.0


def test_two_sided_one_checker_each_is_the_independence_formula(small_two, small_one):
    """With one checker a side no play choice matters, so P(my rolls <= theirs) is exact."""
    single = np.flatnonzero(bo._all_counts(4).sum(axis=1) == 1)
    rolls = small_one.rolls[single]
    at_least = np.cumsum(rolls[:, ::-1], axis=1)[:, ::-1]
    expected = rolls @ at_least.T
    np.testing.assert_allclose(small_two.win[np.ix_(single, single)], expected, atol=1e-12)


def test_two_sided_cube_ownership_is_worth_something(small_two):
    cubeless = 2.0 * small_two.win - 1.0
    assert np.all(small_two.owned >= small_two.centred - 1e-12)
    assert np.all(small_two.centred >= small_two.unavailable - 1e-12)
    assert np.all(small_two.owned >= cubeless - 1e-12)
    assert np.all(small_two.unavailable <= cubeless + 1e-12)
    assert np.abs(small_two.owned).max() <= 1.0 + 1e-12


# --- cache ------------------------------------------------------------------------------


def test_cache_location(tmp_path, monkeypatch):
    assert bo.cache_dir() == tmp_path / "xdg" / "nardy"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert bo.cache_dir() == bo.Path.home() / ".cache" / "nardy"


def test_cache_builds_once_then_reads(tmp_path, monkeypatch, small_one):
    db = bo.one_sided(6, progress=False)
    path = tmp_path / "xdg" / "nardy" / "bearoff-one-sided-6.bin"
    assert path.exists() and os.path.getsize(path) < 200_000
    np.testing.assert_allclose(db.rolls, small_one.rolls, atol=1e-4)  # 16-bit steps
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
    monkeypatch.setattr(bo, "_loaded", {})
    monkeypatch.setattr(bo, "build_one_sided", lambda *a: pytest.fail("rebuilt a valid file"))
    np.testing.assert_array_equal(bo.one_sided(6).rolls, db.rolls)


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "header"])
def test_corrupt_file_is_rebuilt(tmp_path, monkeypatch, capsys, damage):
    two = bo.two_sided(3, progress=False)
    path = tmp_path / "xdg" / "nardy" / "bearoff-two-sided-3.bin"
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[-7] ^= 0x10
    elif damage == "truncate":
        data = data[:-2]
    elif damage == "empty":
        data = b""
    else:
        data[8] += 1  # format version
    path.write_bytes(bytes(data))
    assert bo.read_table(path, b"TWO1", 3) is None
    monkeypatch.setattr(bo, "_loaded", {})
    capsys.readouterr()
    again = bo.two_sided(3, progress=False)
    np.testing.assert_array_equal(again.win, two.win)
    assert bo.read_table(path, b"TWO1", 3) is not None
    assert f"nardy: the bear-off database {path} was damaged or of another version; rebuilt" in capsys.readouterr().err


def test_write_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "table.bin"
    old = np.arange(6, dtype=np.uint16).reshape(2, 3)
    bo.write_table(path, b"TEST", 1, old)

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        bo.write_table(path, b"TEST", 1, old + 1)
    np.testing.assert_array_equal(bo.read_table(path, b"TEST", 1), old)  # the old file untouched
    assert [p.name for p in tmp_path.iterdir()] == ["table.bin"]  # and no temporary file left


def test_unwritable_cache_keeps_the_database_in_memory(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setattr(bo, "_loaded", {})
    two = bo.two_sided(2, directory=blocker / "nardy", progress=False)
    assert two.win[1, 1] == pytest.approx(1.0)  # one checker each on the ace point: the side on roll wins
    assert "cannot store the bear-off database" in capsys.readouterr().err
    assert bo.two_sided(2, directory=blocker / "nardy", progress=False) is two  # built once per process


# --- evaluation -------------------------------------------------------------------------


def bearoff_board(mine: list[int], theirs: list[int]) -> np.ndarray:
    """Board (26,) in the view of the side on roll: ``mine`` on its points 1..6, ``theirs`` on the opponent's."""
    board = np.zeros(26, dtype=np.int8)
    board[1:7] = mine
    board[24:18:-1] = -np.array(theirs)
    return board


def test_is_bearoff():
    boards = np.stack(
        [
            START,
            bearoff_board([2, 0, 0, 0, 0, 3], [1, 1, 0, 0, 0, 0]),
            bearoff_board([0] * 6, [1, 0, 0, 0, 0, 0]),
        ]
    )
    outside = bearoff_board([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    outside[7] = 1
    on_bar = bearoff_board([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    on_bar[0] = -1
    theirs_outside = bearoff_board([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    theirs_outside[18] = -1
    boards = np.vstack([boards, outside, on_bar, theirs_outside])
    assert bo.is_bearoff(boards).tolist() == [False, True, True, False, False, False]


@pytest.mark.slow
def test_probabilities_exact_and_one_sided(full_one, small_two):
    boards = np.stack(
        [
            bearoff_board([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0]),  # two-sided: 27/36
            bearoff_board(
                [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 15]
            ),  # I win, a gammon unless I miss and they take one off
            bearoff_board([0, 0, 0, 0, 0, 15], [1, 0, 0, 0, 0, 0]),  # I lose, a gammon unless I take one off
            bearoff_board([3, 3, 3, 2, 2, 2], [0, 0, 0, 0, 0, 15]),
        ]
    )
    five = bo.bearoff_probabilities(boards, full_one, small_two)
    assert five.dtype == np.float32 and five.shape == (4, 5)
    np.testing.assert_allclose(five[0], [0.75, 0, 0, 0, 0], atol=1e-6)
    # 15 on their 6 point bear none off with 44 55 43 52 53 54 41 31 21 32 11: 19 of 36.
    np.testing.assert_allclose(five[1], [1.0, 27 / 36 + 9 / 36 * 19 / 36, 0, 0, 0], atol=1e-4)
    np.testing.assert_allclose(five[2], [0, 0, 0, 19 / 36, 0], atol=1e-4)
    assert five[3, 0] > 0.99 and 0 < five[3, 1] < five[3, 0] and five[3, 3] == 0
    assert np.all(five[:, [2, 4]] == 0)


# --- GNU Backgammon ---------------------------------------------------------------------


def gnubg_board(mine: np.ndarray, theirs: np.ndarray) -> list[list[int]]:
    """gnubg's 2 x 25 board: [opponent, side on roll], each on its own points 1..6 (indices 0..5)."""
    return [[int(x) for x in theirs] + [0] * 19, [int(x) for x in mine] + [0] * 19]


@pytest.mark.slow
def test_one_sided_matches_gnubg(full_one):
    gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn (GNU Backgammon's evaluator) not installed")
    counts = bo._all_counts(15)
    theirs = np.zeros((len(counts), bo.MAX_ROLLS))
    theirs[0, 0] = 1.0
    for i in range(1, len(counts)):
        dist = gnubg.bearoff_probabilities(tuple(int(x) for x in counts[i]))  # P(1 roll), P(2 rolls), ...
        theirs[i, 1 : 1 + len(dist)] = dist
    diff = np.abs(theirs - full_one.rolls).max(axis=1)
    # 16-bit rounding inside gnubg's recursion (and its tie-breaks between plays of equal mean)
    # move a few hundred of the 54,264 distributions by more than 1e-4.
    assert np.mean(diff > 1e-4) < 0.01 and diff.max() < 5e-3
    assert np.abs(theirs @ np.arange(32) - full_one.mean_rolls()).max() < 5e-4


def test_two_sided_matches_gnubg(small_two):
    gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn (GNU Backgammon's evaluator) not installed")
    counts = bo._all_counts(4)
    rng = np.random.default_rng(9)
    mine, theirs = rng.integers(1, len(counts), (2, 5000))
    expected = np.array([gnubg.probabilities(gnubg_board(counts[i], counts[j]), 0)[0] for i, j in zip(mine, theirs)])
    # gnubg stores equities in 16 bits (steps of 3e-5 in P(win)).
    assert np.abs(small_two.win[mine, theirs] - expected).max() < 1e-4


@pytest.mark.slow
def test_evaluation_matches_gnubg(full_one, small_two):
    gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn (GNU Backgammon's evaluator) not installed")
    counts = bo._all_counts(15)
    rng = np.random.default_rng(3)
    fifteen = np.flatnonzero(counts.sum(axis=1) == 15)
    small = bo.positions_count(4)
    mine = np.r_[rng.integers(1, len(counts), 3000), rng.choice(fifteen, 1000), rng.integers(1, small, 1000)]
    theirs = np.r_[rng.integers(1, len(counts), 3000), rng.integers(1, small, 1000), rng.choice(fifteen, 1000)]
    # gnubg's two-sided database has 6 checkers a side, this test's only 4: leave out the pairs
    # that gnubg would take from it and this one could not.
    keep = (np.maximum(counts[mine].sum(axis=1), counts[theirs].sum(axis=1)) > 6) | ((mine < small) & (theirs < small))
    mine, theirs = mine[keep], theirs[keep]
    boards = np.stack([bearoff_board(counts[i], counts[j]) for i, j in zip(mine, theirs)])
    assert bo.is_bearoff(boards).all()
    five = bo.bearoff_probabilities(boards, full_one, small_two)
    expected = np.array([gnubg.probabilities(gnubg_board(counts[i], counts[j]), 0) for i, j in zip(mine, theirs)])
    diff = np.abs(five - expected)
    worst = np.argmax(diff[:, 0])
    assert diff[:, 0].max() < 5e-4, (counts[mine[worst]], counts[theirs[worst]], five[worst], expected[worst])  # win
    assert diff[:, [1, 3]].max() < 5e-3 and diff[:, [1, 3]].mean() < 1e-4  # gammons: ties between plays
    assert np.all(five[:, [2, 4]] == 0) and np.all(expected[:, [2, 4]] == 0)
