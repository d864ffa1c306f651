"""The bot's move-choice error in one class of position, judged by its own rollouts: backgammon or long nardy.

No GNU Backgammon: the positions are the bot's own self-play positions of the class, one random
roll each, and the judge is the bot's own cubeless rollout of the candidate plays
(``bot.search.rollout.rollout_afterstates``: variance reduction, played to the end unless
``--truncate``; backgammon's bear-offs within the databases exact). Backgammon's classes are its
networks' (``bot.evaluation.classes.classify``: race, crashed); long nardy's (``--variant long``)
are the phases of ``engine.long_nardy.phases`` (bear_off, race, opening, head, blocks, middle),
and ``all`` takes the same number of each phase, in turn.

``--build`` writes one JSON line per position, appended as each is rolled out (a rerun skips the
positions already written, so an interrupted build continues): ``index`` (order in the seeded
sample), ``position_id`` (side on roll), ``dice``, ``candidates`` (``move`` in GNU Backgammon's
notation, ``afterstate`` the Position ID with the opponent on roll, ``equity`` and ``std_error``
the mover's rollout equity and its standard error, ``zero_ply`` the builder's 0-ply equity) and
``settings``. The candidates are the builder's best ``--top`` plays at 0-ply, every play within
``--margin`` of its 0-ply best, and its 1-ply choice (``benchmarks.strength.served_search``).
Positions with a single legal play are left out: they have no choice to get wrong. ``--add-choices
BOT`` rolls out, on the same dice, the 0-ply and 1-ply choices of another bot that are not yet
candidates, and rewrites the set with them (atomically): a new bot is then judged on its own plays. In a
pooled set (``--merge``) they are rolled out once, with all the pooled trials, on dice of every seed together.

``--rejudge SEED`` rolls out every candidate of a set (``--fixture``) again, with the set's settings (its
trials unless ``--trials``) but dice seeded by ``SEED``, by ``--checkpoint`` (give the judge that built the
set), and writes a set of the same candidates with those values (``--out``; resumable as a build).
``--measure --second-judge OTHER`` then says what the set can tell: how often the two judges name the same
best play, and the error that each judge's best play reads under the other, the floor a bot as good as a
rollout of the set's length would show.
``--merge A B ...`` pools the rollouts of one set's candidates by several judges (``--rejudge`` on other
seeds) into one set of their trials together (``--out``): each candidate's equity is the trial-weighted mean.
``--floor A B C ...`` says, from the spread between such judges, what a player who always chose the best play
would read on one of them and on all of them pooled (``perfect_reading``): how much of a bot's error is noise.

``--measure`` prints, for a bot at each depth, the mean error per position (rollout equity of the
best candidate minus that of its choice, x1000) with a 95% interval, the shares of positions where
it errs and where it errs beyond the rollouts' noise, and the paired difference of the two depths;
with ``--against`` a second bot is measured too and paired with the first position by position
(mean difference, positions each does better on, and the sign test on them). A choice outside the
candidates has no rollout value and is counted apart. docs/journal/class-errors.md
has the sets' settings and the shipped bot's figures.

    python -m benchmarks.class_errors --build --position-class race --positions 250 --trials 324 --top 3 --margin 0.03
        --out benchmarks/data/race_set.jsonl
    python -m benchmarks.class_errors --measure --fixture benchmarks/data/race_set.jsonl [--checkpoint F] [--plies 0 1]
        [--against OTHER]
    python -m benchmarks.class_errors --variant long --build --position-class all --positions 300
        --out benchmarks/data/long_nardy_set.jsonl
    python -m benchmarks.class_errors --variant long --add-choices NEW.npz
        --fixture benchmarks/data/long_nardy_set.jsonl
    python -m benchmarks.class_errors --variant long --rejudge 7 --checkpoint JUDGE.npz
        --fixture benchmarks/data/long_nardy_set.jsonl --out rejudged.jsonl
    python -m benchmarks.class_errors --variant long --measure --fixture benchmarks/data/long_nardy_set.jsonl
        --second-judge rejudged.jsonl
    python -m benchmarks.class_errors --merge benchmarks/data/long_nardy_set.jsonl rejudged.jsonl --out pooled.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from bot.evaluation.evaluator import ProbabilityEvaluator, choose_afterstates
from bot.facade import Bot
from bot.search.rollout import RolloutSettings, rollout_afterstates
from engine.long_nardy.phases import Phase, phases
from engine.variant import BACKGAMMON, Variant, find_variant
from training.distill import class_rows, sample_positions
from training.selfplay import roll_dice

from benchmarks.common import ROOT, load_records
from benchmarks.fixture_diff import sign_test
from benchmarks.strength import served_search

DEFAULT_CHECKPOINTS = {
    "backgammon": ROOT / "checkpoints" / "default.npz",
    "long_nardy": ROOT / "checkpoints" / "long_nardy.npz",
}
BACKGAMMON_CLASSES = ("race", "crashed")
LONG_NARDY_CLASSES = (*(phase.name.lower() for phase in Phase), "all")
BUILD_TRIALS = 324  # rollout games per candidate of a new set
# Picks the afterstates (B, 26; mover's view) a bot plays from boards (B, 26; side on roll) and dice (B, 2).
Chooser = Callable[[np.ndarray, np.ndarray], np.ndarray]


def load_bot(path: str | os.PathLike, game: Variant) -> ProbabilityEvaluator:
    """The bot of a checkpoint file as the doors load it, for ``game``."""
    return Bot.load(path, variant=game).evaluator


def afterstate_id(game: Variant, afterstate: np.ndarray) -> str:
    """The Position ID of an afterstate (mover's view) as GNU Backgammon shows it: the opponent on roll."""
    return str(game.position(game.flip(np.asarray(afterstate, dtype=np.int8))).id)


def board_of(game: Variant, position_id: str) -> np.ndarray:
    """The board (side on roll's view) of a Position ID of ``game``."""
    return np.asarray(game.position.from_id(position_id).board, dtype=np.int8)


def class_names(game: Variant, boards: np.ndarray) -> np.ndarray:
    """(B,) the class of each board (side on roll) as ``--position-class`` names it: long nardy's phase, else ''."""
    if game is BACKGAMMON:
        return np.full(len(boards), "", dtype=object)
    return np.array([Phase(p).name.lower() for p in phases(boards)], dtype=object)


def rows_of_class(game: Variant, boards: np.ndarray, label: str) -> np.ndarray:
    """(K,) indices of the boards of class ``label``, in order; long nardy's ``all`` takes each phase in turn."""
    if game is BACKGAMMON:
        return class_rows(boards, label)
    names = class_names(game, boards)
    if label != "all":
        return np.flatnonzero(names == label)
    groups = [np.flatnonzero(names == phase.name.lower()) for phase in Phase]
    return np.array([group[k] for k in range(max(map(len, groups))) for group in groups if k < len(group)])


def class_positions(
    evaluator: ProbabilityEvaluator, label: str, games: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """(boards (P, 26) side on roll, dice (P, 2)): distinct self-play positions of class ``label`` with a
    roll each, in a seeded order, those with a single legal play left out."""
    rng = np.random.default_rng(seed)
    boards = sample_positions(evaluator, games, 0.0, min(games, 400), rng)
    dice = roll_dice(len(boards), rng)
    _, parent = evaluator.game.afterstates(boards, dice)
    choice = np.bincount(parent, minlength=len(boards)) > 1
    boards, dice = boards[choice], dice[choice]
    rows = rows_of_class(evaluator.game, boards, label)
    return boards[rows], dice[rows]


def candidates(
    evaluator: ProbabilityEvaluator,
    board: np.ndarray,
    dice: np.ndarray,
    top: int,
    margin: float,
    one_ply: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(afterstates (M, 26) mover's view, their 0-ply equities (M,) for the mover), best first: the
    ``top`` best at 0-ply, every play within ``margin`` of the best, and ``one_ply`` (the 1-ply choice)."""
    children, parent = evaluator.game.afterstates(board[None], dice[None])
    scores = evaluator.afterstate_scores(board[None], children, parent)
    order = np.argsort(-scores, kind="stable")
    keep = (np.arange(len(order)) < top) | (scores[order] >= scores[order[0]] - margin)
    keep |= (children[order] == one_ply).all(axis=1)
    chosen = order[keep]
    return children[chosen], scores[chosen]


def move_texts(game: Variant, board: np.ndarray, dice: np.ndarray) -> dict[bytes, str]:
    """Each legal play's notation, keyed by its afterstate's bytes (int8, mover's view)."""
    return {
        np.asarray(p.afterstate, dtype=np.int8).tobytes(): game.format_play(p)
        for p in game.legal_plays(board, tuple(int(d) for d in dice))
    }


def candidate_records(
    game: Variant, board: np.ndarray, dice: np.ndarray, plays: np.ndarray, zero_ply: np.ndarray, results: list
) -> list[dict]:
    """The JSON of rolled-out candidate plays of one position."""
    texts = move_texts(game, board, dice)
    return [
        {
            "move": texts[play.tobytes()],
            "afterstate": result.position_id,
            "equity": round(result.equity, 5),
            "std_error": round(result.equity_std_error, 5),
            "zero_ply": round(float(score), 5),
        }
        for play, score, result in zip(plays, zero_ply, results)
    ]


def done_indices(path: Path, settings: dict) -> set[int]:
    """The ``index`` of every complete line already in ``path``; a torn last line (an interrupted
    write) is cut off, atomically, so that appending continues cleanly. Lines built with other
    ``settings`` stop the build: one set, one judge."""
    if not path.exists():
        return set()
    text = path.read_text()
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
        partial = path.with_suffix(path.suffix + ".tmp")
        partial.write_text(text)
        os.replace(partial, path)
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    if any(r["settings"] != settings for r in records):
        raise SystemExit(f"{path} was built with other settings: write a new file")
    return {r["index"] for r in records}


def append_records(path: Path, records: Iterable[dict]) -> tuple[int, float]:
    """Append each record to ``path`` as it comes (one JSON line, flushed, so an interrupted run keeps its
    work), saying every 10 how long one took; (records written, seconds)."""
    start, rolled = time.perf_counter(), 0
    with open(path, "a") as f:
        for record in records:
            f.write(json.dumps(record) + "\n")
            f.flush()
            rolled += 1
            if rolled % 10 == 0:
                print(f"{rolled} positions rolled out, {(time.perf_counter() - start) / rolled:.1f} s each", flush=True)
    return rolled, time.perf_counter() - start


def recorded_seeds(recorded: dict) -> list[int]:
    """The dice seeds a set's settings record: one, or a pooled set's (``--merge``) several."""
    return np.atleast_1d(recorded["seed"]).tolist()


def rollout_settings(recorded: dict) -> RolloutSettings:
    """The judge's rollout settings as a set records them."""
    return RolloutSettings(trials=recorded["trials"], truncate=recorded["truncate"])


def build(args: argparse.Namespace, game: Variant) -> None:
    """Roll out the candidates of ``args.positions`` positions of the class, appending one line each."""
    evaluator = load_bot(args.checkpoint, game)
    settings = RolloutSettings(trials=args.trials or BUILD_TRIALS, truncate=args.truncate)
    recorded = {
        "checkpoint": Path(args.checkpoint).name,
        "seed": args.seed,
        "games": args.games,
        "top": args.top,
        "margin": args.margin,
        "trials": settings.trials,
        "truncate": settings.truncate,
        "variance_reduction": settings.variance_reduction,
        "rollout_plies": settings.plies,
        "prune": settings.prune,
        "cubeless": True,
    }
    if game is not BACKGAMMON:
        recorded["variant"] = game.name
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = done_indices(out, recorded)
    boards, dice = class_positions(evaluator, args.position_class, args.games, args.seed)
    if len(boards) < args.positions:
        print(f"only {len(boards)} {args.position_class} positions with a choice in {args.games} games")
    boards, dice = boards[: args.positions], dice[: args.positions]
    labels = class_names(game, boards)
    one_ply = choose_afterstates(served_search(evaluator, 1), boards, dice)

    def rolled_out() -> Iterator[dict]:
        for index in range(len(boards)):
            if index in done:
                continue
            board, roll = boards[index], dice[index]
            plays, zero_ply = candidates(evaluator, board, roll, args.top, args.margin, one_ply[index])
            results = rollout_afterstates(evaluator, plays, np.random.default_rng([args.seed, index]), settings)
            yield {
                "index": index,
                "class": labels[index] or args.position_class,
                "position_id": str(game.position(board).id),
                "dice": [int(d) for d in roll],
                "candidates": candidate_records(game, board, roll, plays, zero_ply, results),
                "settings": recorded,
            }

    rolled, seconds = append_records(out, rolled_out())
    if rolled:
        print(f"{rolled} positions rolled out in {seconds:.0f} s ({out})")


def add_choices(args: argparse.Namespace, game: Variant) -> None:
    """Roll out the 0-ply and 1-ply choices of ``args.add_choices`` that a set lacks, on each position's dice
    seed, and rewrite the set with them (atomically, every 10 positions, so an interrupted run keeps its work)."""
    path = Path(args.fixture)
    records = load_records(path)
    evaluator = load_bot(args.add_choices, game)
    boards = np.array([board_of(game, r["position_id"]) for r in records], dtype=np.int8)
    dice = np.array([r["dice"] for r in records], dtype=np.int64)
    choices = [choose_afterstates(served_search(evaluator, plies), boards, dice) for plies in (0, 1)]
    added = 0
    for row, record in enumerate(records):
        known = {c["afterstate"] for c in record["candidates"]}
        plays = np.unique(np.array([c[row] for c in choices], dtype=np.int8), axis=0)
        plays = np.array([p for p in plays if afterstate_id(game, p) not in known], dtype=np.int8)
        if not len(plays):
            continue
        recorded = record["settings"]
        rng = np.random.default_rng([*recorded_seeds(recorded), record["index"]])
        results = rollout_afterstates(evaluator, plays, rng, rollout_settings(recorded))
        zero_ply = evaluator.afterstate_scores(boards[row : row + 1], plays, np.zeros(len(plays), dtype=np.int64))
        new = candidate_records(game, boards[row], dice[row], plays, zero_ply, results)
        record["candidates"] += [{**c, "added_by": Path(args.add_choices).name} for c in new]
        added += len(new)
        if added and row % 10 == 9:
            write_records(path, records)
    write_records(path, records)
    print(f"{added} choices of {Path(args.add_choices).name} added to {path}")


def rejudge(args: argparse.Namespace, game: Variant) -> None:
    """Roll out every candidate of the set again with dice seeded by ``args.rejudge``, appending one line per
    position to ``args.out`` (a rerun skips the positions already there)."""
    records = load_records(Path(args.fixture))
    evaluator = load_bot(args.checkpoint, game)
    out = Path(args.out)
    judge = {
        "checkpoint": Path(args.checkpoint).name,
        "seed": args.rejudge,
        "trials": args.trials or records[0]["settings"]["trials"],
    }
    done = done_indices(out, {**records[0]["settings"], **judge})

    def rolled_out() -> Iterator[dict]:
        for record in records:
            if record["index"] in done:
                continue
            plays = np.array([game.flip(board_of(game, c["afterstate"])) for c in record["candidates"]], dtype=np.int8)
            settings = {**record["settings"], **judge}
            rng = np.random.default_rng([args.rejudge, record["index"]])
            results = rollout_afterstates(evaluator, plays, rng, rollout_settings(settings))
            candidates = [
                {**c, "equity": round(r.equity, 5), "std_error": round(r.equity_std_error, 5)}
                for c, r in zip(record["candidates"], results)
            ]
            yield {**record, "candidates": candidates, "settings": settings}

    rolled, seconds = append_records(out, rolled_out())
    print(f"{rolled} positions rolled out again in {seconds:.0f} s ({out})")


def pooled(sets: Sequence[Sequence[dict]]) -> list[dict]:
    """One set of the positions every set holds, each candidate's rollouts pooled: the equity the mean weighted
    by each set's trials, the standard error of that mean; ``settings`` the first set's, with the trials
    summed and every set's seed. The sets must roll out the same candidates."""
    by_index = [{r["index"]: r for r in records} for records in sets]
    merged = []
    for record in sets[0]:
        if any(record["index"] not in records for records in by_index):
            continue
        group = [records[record["index"]] for records in by_index]
        trials = np.array([r["settings"]["trials"] for r in group], dtype=np.float64)
        candidates = []
        for k, candidate in enumerate(record["candidates"]):
            rolled = [r["candidates"][k] for r in group]
            if any(c["afterstate"] != candidate["afterstate"] for c in rolled):
                raise SystemExit(f"position {record['index']}: the sets roll out other candidates")
            equity = float(np.dot(trials, [c["equity"] for c in rolled]) / trials.sum())
            spread = float(np.sqrt(np.sum((trials * [c["std_error"] for c in rolled]) ** 2)) / trials.sum())
            candidates.append({**candidate, "equity": round(equity, 5), "std_error": round(spread, 5)})
        seeds = [seed for r in group for seed in recorded_seeds(r["settings"])]
        settings = {**record["settings"], "trials": int(trials.sum()), "seed": seeds}
        merged.append({**record, "candidates": candidates, "settings": settings})
    return merged


def judges_compared(first: Sequence[dict], second: Sequence[dict]) -> str:
    """How far two rollouts of the same candidates agree, over the positions both hold: the share where they
    name the same best play, and the mean error (x1000, 95% interval) of each one's best play judged by the
    other."""
    by_index = {r["index"]: r for r in second}
    pairs = [(r, by_index[r["index"]]) for r in first if r["index"] in by_index]
    same, floors = 0, []
    for a, b in pairs:
        equities = [{c["afterstate"]: c["equity"] for c in r["candidates"]} for r in (a, b)]
        bests = [max(e, key=e.__getitem__) for e in equities]
        same += bests[0] == bests[1]
        floors.append([1000 * (max(equities[1 - k].values()) - equities[1 - k][bests[k]]) for k in (0, 1)])
    errors = np.array(floors)
    half = 1.96 * errors.std(axis=0, ddof=1) / np.sqrt(len(errors))
    return (
        f"two judges over {len(pairs)} positions: the same best play in {100 * same / len(pairs):.1f}%; "
        f"the first's best judged by the second errs {errors[:, 0].mean():.2f} +- {half[0]:.2f} x1000, "
        f"the second's by the first {errors[:, 1].mean():.2f} +- {half[1]:.2f}"
    )


def perfect_reading(sets: Sequence[Sequence[dict]], judges: int, draws: int = 4000, seed: int = 0) -> float:
    """The error (x1000 a move) a player who always chose the best play would read on a set of ``judges`` of
    ``sets``' rollouts pooled: the floor the rollouts' noise puts under every bot.

    ``sets`` roll out the same candidates with as many trials each (``--rejudge``). Per position, the spread
    between them of each candidate's equity less the first candidate's (the dice they share cancel) divided by
    ``judges`` is the noise of such a pooled set; the floor is the mean, over draws of that noise about the
    pooled equities, of the best drawn value less that of the best pooled candidate. The pooled equities stand
    in for the truth: an estimate, and one that needs three sets or more to be steady."""
    rng = np.random.default_rng(seed)
    by_index = [{r["index"]: r for r in records} for records in sets]
    readings = []
    for record in pooled(sets):
        truth = np.array([c["equity"] for c in record["candidates"]])
        if len(truth) < 2:
            readings.append(0.0)
            continue
        equities = np.array([[c["equity"] for c in r[record["index"]]["candidates"]] for r in by_index])
        noise = np.atleast_2d(np.cov(equities[:, 1:] - equities[:, :1], rowvar=False)) / judges
        drawn = truth + np.concatenate(
            [np.zeros((draws, 1)), rng.multivariate_normal(np.zeros(len(truth) - 1), noise, draws, "ignore")], axis=1
        )
        readings.append(1000 * float((drawn.max(axis=1) - drawn[:, truth.argmax()]).mean()))
    return float(np.mean(readings))


def write_records(path: Path, records: Sequence[dict]) -> None:
    """Replace the set at ``path`` with ``records``, one JSON line each, atomically."""
    partial = path.with_suffix(path.suffix + ".tmp")
    partial.write_text("".join(json.dumps(r) + "\n" for r in records))
    os.replace(partial, path)


@dataclass(frozen=True)
class ClassErrors:
    """A bot's errors on a fixture, per position: ``errors`` x1000, the mover's rollout equity lost (NaN where
    its choice is outside the candidates); ``clear``, the error exceeds twice the two plays' standard errors
    combined (an overstatement of the difference's error: the candidates share their dice)."""

    errors: np.ndarray
    clear: np.ndarray

    def summary(self) -> str:
        """Mean error x1000 with its 95% interval, the shares of positions with an error and a clear one,
        and the count of choices outside the candidates."""
        inside = ~np.isnan(self.errors)
        known, n = self.errors[inside], int(inside.sum())
        half = 1.96 * known.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
        shares = [(float(p), 1.96 * np.sqrt(p * (1 - p) / n)) for p in ((known > 0).mean(), self.clear[inside].mean())]
        return (
            f"{n} positions: error x1000 per move {known.mean():.2f} +- {half:.2f} (95%), "
            f"errs in {100 * shares[0][0]:.1f}% +- {100 * shares[0][1]:.1f}%, "
            f"clearly in {100 * shares[1][0]:.1f}% +- {100 * shares[1][1]:.1f}%; "
            f"{len(self.errors) - n} choices outside the candidates"
        )


def choice_errors(records: Sequence[dict], chooser: Chooser, game: Variant = BACKGAMMON) -> ClassErrors:
    """The errors of ``chooser``'s plays: the best candidate's rollout equity minus its choice's (x1000)."""
    boards = np.array([board_of(game, r["position_id"]) for r in records], dtype=np.int8)
    dice = np.array([r["dice"] for r in records], dtype=np.int64)
    chosen = chooser(boards, dice)
    errors = np.full(len(records), np.nan)
    clear = np.zeros(len(records), dtype=bool)
    for row, (record, play) in enumerate(zip(records, chosen)):
        by_id = {c["afterstate"]: c for c in record["candidates"]}
        best = max(record["candidates"], key=lambda c: c["equity"])
        mine = by_id.get(afterstate_id(game, play))
        if mine is not None:
            lost = best["equity"] - mine["equity"]
            errors[row] = 1000 * lost
            clear[row] = lost > 2 * np.hypot(best["std_error"], mine["std_error"])
    return ClassErrors(errors, clear)


def depth_errors(records: Sequence[dict], evaluator: ProbabilityEvaluator, plies: int) -> ClassErrors:
    """The errors of the bot at ``plies``, searched as the doors search."""
    search = served_search(evaluator, plies)
    return choice_errors(records, lambda b, d: choose_afterstates(search, b, d), evaluator.game)


def paired(label: str, mine: np.ndarray, theirs: np.ndarray) -> str:
    """``theirs - mine``, two bots' errors per position (x1000; positive: ``mine`` errs less), with its 95%
    interval, the positions each does better on and the sign test on them; positions either has no value for
    are left out."""
    gain = theirs - mine
    gain = gain[~np.isnan(gain)]
    half = 1.96 * gain.std(ddof=1) / np.sqrt(len(gain))
    wins, losses = int((gain > 0).sum()), int((gain < 0).sum())
    return (
        f"  {label}, paired: {gain.mean():.2f} +- {half:.2f} (95%) over {len(gain)} positions; "
        f"{wins} better, {losses} worse (sign test p = {sign_test(wins, losses):.2f})"
    )


def measure(args: argparse.Namespace, game: Variant) -> None:
    """Print the errors of the checkpoint's bot on the fixture at each depth in ``args.plies``, and beside
    ``args.against``'s, paired by position; long nardy's by phase too."""
    records = load_records(Path(args.fixture))
    noise = np.mean([max(c["std_error"] for c in r["candidates"]) for r in records])
    print(f"{args.fixture}: {len(records)} positions; mean largest candidate std error x1000 {1000 * noise:.2f}")
    errors = {}
    paths = [args.checkpoint, *([args.against] if args.against else [])]
    bots = [(path, load_bot(path, game)) for path in paths]
    classes = np.array([r["class"] for r in records])
    for plies in args.plies:
        for checkpoint, evaluator in bots:
            start = time.perf_counter()
            result = depth_errors(records, evaluator, plies)
            errors[checkpoint, plies] = result.errors
            print(f"  {Path(checkpoint).name}, {plies}-ply: {result.summary()} ({time.perf_counter() - start:.0f} s)")
            if game is not BACKGAMMON:
                print(
                    "    by phase: "
                    + ", ".join(
                        f"{name} {np.nanmean(result.errors[classes == name]):.2f} ({(classes == name).sum()})"
                        for name in dict.fromkeys(classes)
                    )
                )
        if args.against:
            name = Path(args.checkpoint).name
            print(
                paired(
                    f"{name} against {Path(args.against).name}, {plies}-ply",
                    errors[args.checkpoint, plies],
                    errors[args.against, plies],
                )
            )
    if args.second_judge:
        print("  " + judges_compared(records, load_records(Path(args.second_judge))))
    if len(args.plies) == 2:  # the same candidates judge both depths
        print(
            paired(
                f"{Path(args.checkpoint).name}, 1-ply against 0-ply",
                errors[args.checkpoint, 1],
                errors[args.checkpoint, 0],
            )
        )


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--build", action="store_true", help="roll out a position set")
    mode.add_argument("--measure", action="store_true", help="measure a bot on a position set")
    mode.add_argument("--add-choices", metavar="BOT", help="roll out this bot's choices a set lacks (--fixture)")
    mode.add_argument("--rejudge", type=int, metavar="SEED", help="roll out a set's candidates again (--fixture)")
    mode.add_argument("--merge", nargs="+", metavar="SET", help="pool sets of the same candidates (--out)")
    mode.add_argument(
        "--floor", nargs="+", metavar="SET", help="what a perfect player would read on these judges' sets pooled"
    )
    parser.add_argument("--variant", default="backgammon", help="backgammon (default) or long (long nardy)")
    parser.add_argument("--checkpoint", help="the bot built from, or measured (default: the game's shipped bot)")
    parser.add_argument(
        "--position-class",
        default="race",
        help=f"backgammon: {', '.join(BACKGAMMON_CLASSES)}; long nardy: {', '.join(LONG_NARDY_CLASSES)}",
    )
    parser.add_argument("--positions", type=int, default=250)
    parser.add_argument("--games", type=int, default=1000, help="self-play games that give the positions")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--top", type=int, default=3, help="candidates: the best this many at 0-ply...")
    parser.add_argument("--margin", type=float, default=0.03, help="...and every play within this of the best")
    parser.add_argument(
        "--trials",
        type=int,
        help=f"rollout games per candidate (--build: default {BUILD_TRIALS}; --rejudge: default the set's)",
    )
    parser.add_argument("--truncate", type=int, help="rollout plies before the evaluator's value; default: to the end")
    parser.add_argument("--out", help="the position set to write (--build)")
    parser.add_argument("--fixture", help="the position set to read (--measure, --add-choices)")
    parser.add_argument("--plies", type=int, nargs="+", choices=(0, 1), default=[0, 1], help="depths to measure")
    parser.add_argument("--against", help="a second bot (--measure): both measured, paired position by position")
    parser.add_argument("--second-judge", help="the set rolled out again (--rejudge): what the two judges agree on")
    args = parser.parse_args(argv)
    try:
        game = find_variant(args.variant)
    except ValueError as error:
        parser.error(str(error))
    classes = BACKGAMMON_CLASSES if game is BACKGAMMON else LONG_NARDY_CLASSES
    if args.position_class not in classes:
        parser.error(f"--position-class {args.position_class!r}: {game.title} has {', '.join(classes)}")
    args.checkpoint = args.checkpoint or str(DEFAULT_CHECKPOINTS[game.name])
    if (args.build or args.rejudge is not None or args.merge) and not args.out:
        parser.error("--build, --rejudge and --merge need --out")
    if (args.measure or args.add_choices or args.rejudge is not None) and not args.fixture:
        parser.error("--measure, --add-choices and --rejudge need --fixture")
    with threadpool_limits(limits=1, user_api="blas"):
        if args.build:
            build(args, game)
        elif args.add_choices:
            add_choices(args, game)
        elif args.rejudge is not None:
            rejudge(args, game)
        elif args.merge:
            merged = pooled([load_records(Path(path)) for path in args.merge])
            write_records(Path(args.out), merged)
            print(f"{len(merged)} positions pooled from {len(args.merge)} sets into {args.out}")
        elif args.floor:
            judges = [load_records(Path(path)) for path in args.floor]
            trials = sum(records[0]["settings"]["trials"] for records in judges)
            print(
                f"a player who always chose the best play would read about {perfect_reading(judges, 1):.2f} x1000 a "
                f"move on one of the {len(judges)} sets, {perfect_reading(judges, len(judges)):.2f} on all of them "
                f"pooled ({trials} trials)"
            )
        else:
            measure(args, game)


if __name__ == "__main__":
    main()
