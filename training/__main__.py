"""Command line: ``python -m training train|evaluate ...``.

python -m training train --config configs/td.toml [--resume | --init-from CHECKPOINT] [--games N] [--out DIR]
python -m training evaluate --checkpoint PATH --opponent pubeval|heuristic|random|CHECKPOINT --games N [--seed S]
python -m training ship --checkpoint runs/td/latest.pt [--to checkpoints/default.pt]
python -m training ship --contact runs/a/latest.pt [--race runs/b/latest.pt] [--crashed runs/c/latest.pt]
    [--late-contact runs/d/latest.pt] [--cube-correction runs/cube_correction/correction.npz] [--to ...]
    [--accept-slower] [--speed-repeats N]
python -m training pruner --checkpoint checkpoints/default.npz [--games N] [--hidden H] [--keep K]
python -m training cube-correction --checkpoint checkpoints/default.pt --out runs/cube_correction [--samples N]
python -m training distill --checkpoint checkpoints/default.pt --out runs/distill/r1 [--games N]
    [--stage all|positions|targets|fit]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from bot.evaluation.checkpoint import load_player
from bot.evaluation.classes import NETWORK_CLASSES
from bot.evaluation.evaluator import Evaluator, NetworkEvaluator, RandomEvaluator
from bot.evaluation.games import Game, get_game
from bot.evaluation.long_nardy_heuristic import HeuristicPlayer
from bot.evaluation.network import Network
from bot.evaluation.pubeval import Pubeval
from training.config import ConfigError, config_from_dict, load_config
from training.cube_correction import CORRECTION_FILE, load_correction
from training.cube_correction import run as fit_cube_correction
from training.distill import TargetError
from training.evaluate import evaluate
from training.ship import ship, ship_classes, ship_gated
from training.train import LATEST, Terminated, resume_point, train


def _player(path: str | Path) -> Evaluator:
    """The checkpoint's player, playing the game its network's encoding reads (backgammon or long nardy)."""
    player = load_player(path)
    if isinstance(player, NetworkEvaluator) and isinstance(player.network, Network):
        return NetworkEvaluator(player.network, get_game(player.network.encoding.game))
    return player


def _opponent(name: str, seed: int, game: Game) -> Evaluator:
    if name == "pubeval" and game.name == "backgammon":
        return Pubeval()
    if name == "heuristic" and game.name == "long_nardy":
        return HeuristicPlayer(game)
    if name in ("pubeval", "heuristic"):
        raise ValueError(f"opponent {name!r} does not play {game.name} (pubeval: backgammon, heuristic: long nardy)")
    if name == "random":
        return RandomEvaluator(np.random.default_rng([seed, 1]), game)
    return _player(name)


def _train(args: argparse.Namespace) -> None:
    if args.resume and args.init_from is not None:
        raise ConfigError("train: --resume continues a run, --init-from starts a new one: give one of them")
    if args.config is not None:
        config = load_config(args.config)
    elif args.resume and args.out is not None:
        path, payload = resume_point(args.out, quiet=True)  # train says which it resumes from
        if payload.get("config") is None:
            raise ConfigError(f"checkpoint {str(path)!r} records no config: give the run's --config")
        try:
            config = config_from_dict(payload["config"])
        except ConfigError as error:
            raise ConfigError(
                f"checkpoint {str(path)!r}: its recorded config is unusable ({error}); give --config"
            ) from None
    else:
        raise ConfigError("train: --config is required (or --resume with --out to reuse the run's config)")
    if args.games is not None:
        config = config.replace(games=args.games)
    run_dir = Path(args.out) if args.out is not None else Path("runs") / config.name
    try:
        train(config, run_dir, resume=args.resume, progress=True, init_from=args.init_from)
    except KeyboardInterrupt as interrupt:  # train has saved latest.pt (unless it was still setting up)
        if any(run_dir.glob("*.pt")):
            saved = run_dir / LATEST if (run_dir / LATEST).is_file() else run_dir
            message = f"the run is in {saved}; continue with --resume --out {run_dir}"
            raise type(interrupt)(message) from None
        raise
    print(f"run directory: {run_dir}")


def _evaluate(args: argparse.Namespace) -> None:
    player = _player(args.checkpoint)
    result = evaluate(player, _opponent(args.opponent, args.seed, player.game), args.games, args.seed)
    print(f"{args.checkpoint} vs {args.opponent}: {result.summary()}")


def _ship(args: argparse.Namespace) -> None:
    classes = {label: getattr(args, label) for label in NETWORK_CLASSES if getattr(args, label) is not None}
    if args.checkpoint is not None and classes:
        raise ValueError(
            "ship: give --checkpoint (one network) or --contact/--race/--crashed/--late-contact "
            "(a network per class), not both"
        )
    gate = {"accept_slower": args.accept_slower, "repeats": args.speed_repeats}
    if classes:
        correction = load_correction(args.cube_correction) if args.cube_correction is not None else None
        ship_gated(
            lambda path: ship_classes(classes, path, args.wall_seconds, correction),
            args.to,
            list(classes.values()),
            **gate,
        )
        print(
            f"shipped {', '.join(f'{label} {path}' for label, path in classes.items())} "
            f"to {args.to}, {args.to.with_suffix('.npz')} and {args.to.with_suffix('.json')}"
        )
        return
    if args.checkpoint is None:
        raise ValueError("ship: --checkpoint (one network) or --contact (a network per class) is required")
    if args.cube_correction is not None:
        raise ValueError("ship: --cube-correction goes into a bot of a network per class (--contact ...)")
    metadata = ship_gated(
        lambda path: ship(args.checkpoint, path, args.wall_seconds), args.to, [args.checkpoint], **gate
    )
    print(
        f"shipped {args.checkpoint} ({metadata['self_play_games']} games) to {args.to} "
        f"and {args.to.with_suffix('.json')}"
    )


def _pruner(args: argparse.Namespace) -> None:
    from training.pruner import fit_pruner

    report = fit_pruner(str(args.checkpoint), args.games, args.hidden, args.epochs, args.keep, args.seed)
    ranking = report["ranking"]
    print(
        f"wrote the pruner beside {args.checkpoint}: on held-out positions it keeps the bot's best play "
        f"{100 * ranking['best_kept']:.1f}% of the time; the best it keeps is {ranking['equity_lost']:.4f} "
        "worse on average (cubeless equity, by the bot's own evaluation)"
    )


def _cube_correction(args: argparse.Namespace) -> None:
    fit_cube_correction(args.checkpoint, args.out, args.samples, args.workers, args.hidden, args.seed)
    print(f"wrote {args.out / CORRECTION_FILE}: ship it with --cube-correction")


def _distill(args: argparse.Namespace) -> None:
    from dataclasses import fields

    from training.distill import DistillConfig, distill, run_config

    settings = {
        f.name: getattr(args, f.name)
        for f in fields(DistillConfig)
        if f.name != "checkpoint" and getattr(args, f.name, None) is not None
    }
    stages = {
        "all": ("positions", "targets", "fit"),
        "positions": ("positions",),
        "targets": ("positions", "targets"),
        "fit": ("positions", "targets", "fit"),
    }[args.stage]
    distill(run_config(args.out, str(args.checkpoint), settings), args.out, stages)
    print(f"run directory: {args.out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    train_parser = commands.add_parser("train", help="self-play training with TD(lambda)")
    train_parser.add_argument("--config", type=Path, help="TOML config (see configs/td.toml)")
    train_parser.add_argument(
        "--resume",
        action="store_true",
        help="continue from the run directory's latest.pt (or its newest numbered checkpoint that loads)",
    )
    train_parser.add_argument(
        "--init-from",
        type=Path,
        metavar="CHECKPOINT",
        help="start a new run from this checkpoint's weights (e.g. checkpoints/default.pt), fresh optimizer",
    )
    train_parser.add_argument("--games", type=int, help="total games of the run (overrides the config)")
    train_parser.add_argument("--out", type=Path, help="run directory (default runs/<config name>)")
    train_parser.set_defaults(run=_train)

    eval_parser = commands.add_parser("evaluate", help="cubeless money games against an opponent")
    eval_parser.add_argument("--checkpoint", type=Path, required=True, help="network checkpoint to evaluate")
    eval_parser.add_argument(
        "--opponent",
        default="pubeval",
        help="pubeval (backgammon), heuristic (long nardy), random, or a checkpoint path",
    )
    eval_parser.add_argument("--games", type=int, default=1000, help="games to play (even)")
    eval_parser.add_argument("--seed", type=int, default=1, help="seed of the dice")
    eval_parser.set_defaults(run=_evaluate)

    ship_parser = commands.add_parser("ship", help="make a training checkpoint the shipped bot")
    ship_parser.add_argument("--checkpoint", type=Path, help="training checkpoint, e.g. runs/td/latest.pt")
    ship_parser.add_argument(
        "--contact",
        type=Path,
        help="training checkpoint of the contact network (or a shipped bot: its network of the class)",
    )
    ship_parser.add_argument("--race", type=Path, help="training checkpoint of the race network (default: contact's)")
    ship_parser.add_argument(
        "--crashed", type=Path, help="training checkpoint of the crashed network (default: contact's)"
    )
    ship_parser.add_argument(
        "--late-contact", type=Path, help="training checkpoint of the late-contact network (default: contact's)"
    )
    ship_parser.add_argument(
        "--cube-correction",
        type=Path,
        help="the learned cube correction to ship in the bot (python -m training cube-correction)",
    )
    ship_parser.add_argument("--to", type=Path, default=Path("checkpoints/default.pt"), help="shipped file")
    ship_parser.add_argument("--wall-seconds", type=float, help="training wall time, when the checkpoint lacks it")
    ship_parser.add_argument(
        "--accept-slower",
        action="store_true",
        help="ship even if more than 10%% slower than the shipped bot at 0-ply, 1-ply or rollouts",
    )
    ship_parser.add_argument(
        "--speed-repeats", type=int, default=3, help="runs of each speed measure, the fastest counting (default 3)"
    )
    ship_parser.set_defaults(run=_ship)

    pruner_parser = commands.add_parser(
        "pruner", help="fit the rollouts' move pruner to a bot's own evaluations, written beside the bot"
    )
    pruner_parser.add_argument("--checkpoint", type=Path, required=True, help="the bot (e.g. checkpoints/default.npz)")
    pruner_parser.add_argument("--games", type=int, default=2000, help="self-play games that give the positions")
    pruner_parser.add_argument("--hidden", type=int, default=48, help="hidden units of the pruner")
    pruner_parser.add_argument("--epochs", type=int, default=8, help="passes over the plays")
    pruner_parser.add_argument("--keep", type=int, default=5, help="plays a position keeps for the full networks")
    pruner_parser.add_argument("--seed", type=int, default=1, help="seed of the games and the fit")
    pruner_parser.set_defaults(run=_pruner)

    distill_parser = commands.add_parser(
        "distill", help="fit a network to its own search values on its self-play positions (resumable)"
    )
    distill_parser.add_argument(
        "--checkpoint", type=Path, required=True, help="network that plays, scores and is fitted"
    )
    distill_parser.add_argument(
        "--out", type=Path, required=True, help="run directory (rerun the same command to resume)"
    )
    distill_parser.add_argument(
        "--stage",
        choices=("all", "positions", "targets", "fit"),
        default="all",
        help="stop after this stage (each stage reuses what earlier calls wrote)",
    )
    distill_parser.add_argument("--games", type=int, help="self-play games that give the positions (default 6000)")
    distill_parser.add_argument("--max-positions", type=int, help="keep at most this many positions (0: all)")
    distill_parser.add_argument("--epsilon", type=float, help="exploration of the self-play games (default 0.05)")
    distill_parser.add_argument("--plies", type=int, help="search depth of the targets (default 1)")
    distill_parser.add_argument("--chunk", type=int, help="positions per target file (default 4096)")
    distill_parser.add_argument("--seed", type=int, help="seed of the games and the fit (default 1)")
    distill_parser.add_argument("--epochs", type=int, help="passes over the targets (default 10)")
    distill_parser.add_argument("--learning-rate", type=float, help="Adam's learning rate (default 1e-3)")
    distill_parser.add_argument("--batch-size", type=int, help="minibatch size (default 256)")
    distill_parser.add_argument(
        "--holdout",
        type=float,
        help="share of the run's own positions held out to pick the epoch (default 0.05; never those of --also runs)",
    )
    distill_parser.add_argument(
        "--widen",
        type=int,
        metavar="HIDDEN",
        help="fit a copy with this many hidden units, the extra ones starting silent",
    )
    distill_parser.add_argument(
        "--encoding",
        help="fit a copy on this input encoding (one that extends the "
        "network's, e.g. contact), the new inputs starting with zero weights",
    )
    distill_parser.add_argument(
        "--teachers",
        nargs="+",
        metavar="CHECKPOINT",
        help="more networks: each target is the mean of their searched values and the checkpoint's",
    )
    distill_parser.add_argument("--workers", type=int, help="processes computing the targets (default 1)")
    distill_parser.add_argument(
        "--rollout-trials",
        type=int,
        metavar="GAMES",
        help="targets from this many cubeless 0-ply rollout games per position, not a search",
    )
    distill_parser.add_argument(
        "--rollout-truncate",
        type=int,
        metavar="PLIES",
        help="stop each rollout game after this many plies for the network's value (default 0: at the end)",
    )
    distill_parser.add_argument(
        "--rollout-vr",
        action="store_const",
        const=True,
        help="rollout games with variance reduction (about 20x the work, 35x less spread)",
    )
    distill_parser.add_argument(
        "--also", nargs="+", metavar="RUN_DIR", help="finished runs whose positions and targets are fitted too"
    )
    distill_parser.add_argument(
        "--position-class",
        choices=NETWORK_CLASSES,
        help="keep only positions of this class (theirs in --also runs too) and fit the "
        "checkpoint's network for it (its contact network where it has none)",
    )
    distill_parser.add_argument(
        "--win-range",
        type=float,
        nargs=2,
        metavar=("LOW", "HIGH"),
        help="keep only positions whose side on roll wins this often by the checkpoint's 0-ply "
        "(0.45 0.97: where the leader's cube decisions are; default all)",
    )
    distill_parser.set_defaults(run=_distill)

    correction_parser = commands.add_parser(
        "cube-correction", help="fit a correction to the 0-ply cube model to the bot's own 2-ply cube lookahead"
    )
    correction_parser.add_argument("--checkpoint", type=Path, required=True, help="the bot that plays and searches")
    correction_parser.add_argument(
        "--out", type=Path, required=True, help="run directory: samples.npz (reused by a rerun), correction.npz"
    )
    correction_parser.add_argument("--samples", type=int, default=24000, help="samples near a cube decision")
    correction_parser.add_argument("--workers", type=int, default=2, help="processes searching the samples")
    correction_parser.add_argument("--hidden", type=int, default=64, help="hidden units of the correction")
    correction_parser.add_argument("--seed", type=int, default=1, help="seed of the games, cube states and fit")
    correction_parser.set_defaults(run=_cube_correction)

    args = parser.parse_args(argv)
    try:
        args.run(args)
    except ValueError as error:  # ConfigError, CheckpointError and the engine's errors among them
        print(f"error: {error}", file=sys.stderr)
        return 2
    except TargetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as interrupt:  # Ctrl-C, or SIGTERM (Terminated): 128 + the signal's number
        print(f"interrupted: {interrupt}" if interrupt.args else "interrupted", file=sys.stderr)
        return 143 if isinstance(interrupt, Terminated) else 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
