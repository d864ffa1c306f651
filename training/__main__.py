"""Command line: ``python -m training train|evaluate|ship|pruner|cube-correction|distill ...``.

Every command takes ``--config FILE`` (one TOML file; see training/config.py for its tables)
and ``--set KEY=VALUE`` overrides of its settings; the other arguments name files.

python -m training train --config configs/td.toml [--resume | --init-from CHECKPOINT] [--out DIR] [--set games=N]
python -m training evaluate --checkpoint PATH --opponent pubeval|heuristic|random|CHECKPOINT [--set games=N]
python -m training ship --checkpoint runs/td/latest.pt [--to checkpoints/default.pt] [--accept-slower]
python -m training ship --contact runs/a/latest.pt [--race runs/b/latest.pt] [--crashed runs/c/latest.pt]
    [--late-contact runs/d/latest.pt] [--cube-correction runs/cube_correction/correction.npz] [--to ...]
python -m training pruner --checkpoint checkpoints/default.npz [--set keep=5]
python -m training cube-correction --checkpoint checkpoints/default.pt --out runs/cube_correction
python -m training distill --checkpoint checkpoints/default.pt --out runs/distill/r1 [--stage S] [--set games=N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

import numpy as np

from bot.evaluation.checkpoint import load_player
from bot.evaluation.classes import NETWORK_CLASSES
from bot.evaluation.evaluator import Evaluator, RandomEvaluator
from engine.variant import Variant
from bot.evaluation.long_nardy_heuristic import HeuristicPlayer
from bot.evaluation.pubeval import Pubeval
from engine.errors import BackgammonError
from training.config import (
    ConfigError,
    CubeCorrectionSettings,
    EvaluateSettings,
    PrunerSettings,
    ShipSettings,
    command_settings,
    config_from_dict,
    load_config,
    with_overrides,
)
from training.cube_correction import CORRECTION_FILE, load_correction
from training.cube_correction import run as fit_cube_correction
from training.distill import DistillConfig, distill, recorded_settings
from training.distill import TargetError
from training.evaluate import evaluate
from training.ship import ship, ship_classes, ship_gated
from training.train import LATEST, Terminated, resume_point, train


def _opponent(name: str, seed: int, game: Variant) -> Evaluator:
    if name == "pubeval" and game.name == "backgammon":
        return Pubeval()
    if name == "heuristic" and game.name == "long_nardy":
        return HeuristicPlayer(game)
    if name in ("pubeval", "heuristic"):
        raise ConfigError(f"opponent {name!r} does not play {game.name} (pubeval: backgammon, heuristic: long nardy)")
    if name == "random":
        return RandomEvaluator(np.random.default_rng([seed, 1]), game)
    return load_player(name)


def _train(args: argparse.Namespace) -> None:
    if args.resume and args.init_from is not None:
        raise ConfigError("train: --resume continues a run, --init-from starts a new one: give one of them")
    if args.config is not None:
        config = load_config(args.config, args.set)
    elif args.resume and args.out is not None:
        path, payload = resume_point(args.out, quiet=True)  # train says which it resumes from
        if payload.get("config") is None:
            raise ConfigError(f"checkpoint {str(path)!r} records no config: give the run's --config")
        try:
            config = config_from_dict(with_overrides(payload["config"], args.set))
        except ConfigError as error:
            raise ConfigError(f"checkpoint {str(path)!r}: its recorded config with the overrides ({error})") from None
    else:
        raise ConfigError("train: --config is required (or --resume with --out to reuse the run's config)")
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
    settings = command_settings(EvaluateSettings, "evaluate", args.config, args.set)
    player = load_player(args.checkpoint)
    result = evaluate(player, _opponent(args.opponent, settings.seed, player.game), settings.games, settings.seed)
    print(f"{args.checkpoint} vs {args.opponent}: {result.summary()}")


def _ship(args: argparse.Namespace) -> None:
    settings = command_settings(ShipSettings, "ship", args.config, args.set)
    wall_seconds = settings.wall_seconds or None
    classes = {label: getattr(args, label) for label in NETWORK_CLASSES if getattr(args, label) is not None}
    if args.checkpoint is not None and classes:
        raise ConfigError(
            "ship: give --checkpoint (one network) or --contact/--race/--crashed/--late-contact "
            "(a network per class), not both"
        )
    gate = {"accept_slower": args.accept_slower, "repeats": settings.speed_repeats, "trials": settings.speed_trials}
    if classes:
        correction = load_correction(args.cube_correction) if args.cube_correction is not None else None
        ship_gated(
            lambda path: ship_classes(classes, path, wall_seconds, correction), args.to, list(classes.values()), **gate
        )
        shipped = ", ".join(f"{label} {path}" for label, path in classes.items())
        print(f"shipped {shipped} to {args.to}, {args.to.with_suffix('.npz')} and {args.to.with_suffix('.json')}")
        return
    if args.checkpoint is None:
        raise ConfigError("ship: --checkpoint (one network) or --contact (a network per class) is required")
    if args.cube_correction is not None:
        raise ConfigError("ship: --cube-correction goes into a bot of a network per class (--contact ...)")
    metadata = ship_gated(lambda path: ship(args.checkpoint, path, wall_seconds), args.to, [args.checkpoint], **gate)
    print(
        f"shipped {args.checkpoint} ({metadata['self_play_games']} games) to {args.to} "
        f"and {args.to.with_suffix('.json')}"
    )


def _pruner(args: argparse.Namespace) -> None:
    from training.pruner import fit_pruner

    settings = command_settings(PrunerSettings, "pruner", args.config, args.set)
    report = fit_pruner(str(args.checkpoint), settings)
    ranking = report["ranking"]
    print(
        f"wrote the pruner beside {args.checkpoint}: on held-out positions it keeps the bot's best play "
        f"{100 * ranking['best_kept']:.1f}% of the time; the best it keeps is {ranking['equity_lost']:.4f} "
        "worse on average (cubeless equity, by the bot's own evaluation)"
    )


def _cube_correction(args: argparse.Namespace) -> None:
    settings = command_settings(CubeCorrectionSettings, "cube_correction", args.config, args.set)
    fit_cube_correction(args.checkpoint, args.out, settings)
    print(f"wrote {args.out / CORRECTION_FILE}: ship it with --cube-correction")


STAGES = {
    "all": ("positions", "targets", "fit"),
    "positions": ("positions",),
    "targets": ("positions", "targets"),
    "fit": ("positions", "targets", "fit"),
}


def _distill(args: argparse.Namespace) -> None:
    stored = recorded_settings(args.out)
    config = command_settings(
        DistillConfig, "distill", args.config, args.set, base=stored, checkpoint=str(args.checkpoint)
    )
    distill(config, args.out, STAGES[args.stage])
    print(f"run directory: {args.out}")


def _parser() -> argparse.ArgumentParser:
    """The command line: each command's file arguments, and ``--config``/``--set`` for its settings."""
    parser = argparse.ArgumentParser(prog="python -m training", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str, run: Callable[[argparse.Namespace], None]) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help)
        sub.add_argument("--config", type=Path, help="TOML config (training/config.py says its tables)")
        sub.add_argument(
            "--set", action="append", default=[], metavar="KEY=VALUE", help="override one setting (repeatable)"
        )
        sub.set_defaults(run=run)
        return sub

    train_parser = command("train", "self-play training with TD(lambda)", _train)
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
    train_parser.add_argument("--out", type=Path, help="run directory (default runs/<config name>)")

    eval_parser = command("evaluate", "cubeless money games against an opponent", _evaluate)
    eval_parser.add_argument("--checkpoint", type=Path, required=True, help="network checkpoint to evaluate")
    eval_parser.add_argument(
        "--opponent", default="pubeval", help="pubeval (backgammon), heuristic (long nardy), random, or a checkpoint"
    )

    ship_parser = command("ship", "make a training checkpoint the shipped bot", _ship)
    ship_parser.add_argument("--checkpoint", type=Path, help="training checkpoint, e.g. runs/td/latest.pt")
    for label in NETWORK_CLASSES:
        default = "" if label == "contact" else " (default: contact's)"
        ship_parser.add_argument(
            f"--{label.replace('_', '-')}",
            type=Path,
            help=f"training checkpoint of the {label.replace('_', '-')} network, or a shipped bot's{default}",
        )
    ship_parser.add_argument(
        "--cube-correction", type=Path, help="the learned cube correction to ship (python -m training cube-correction)"
    )
    ship_parser.add_argument("--to", type=Path, default=Path("checkpoints/default.pt"), help="shipped file")
    ship_parser.add_argument(
        "--accept-slower",
        action="store_true",
        help="ship even if more than 10%% slower than the shipped bot at 0-ply, 1-ply or rollouts",
    )

    pruner_parser = command("pruner", "fit the rollouts' move pruner to a bot's own evaluations", _pruner)
    pruner_parser.add_argument("--checkpoint", type=Path, required=True, help="the bot (e.g. checkpoints/default.npz)")

    distill_parser = command("distill", "fit a network to its own search values (resumable)", _distill)
    distill_parser.add_argument("--checkpoint", type=Path, required=True, help="network that plays and is fitted")
    distill_parser.add_argument("--out", type=Path, required=True, help="run directory (rerun to resume)")
    distill_parser.add_argument(
        "--stage", choices=tuple(STAGES), default="all", help="stop after this stage (each reuses what earlier wrote)"
    )

    correction_parser = command(
        "cube-correction", "fit a correction to the 0-ply cube model to the bot's own 2-ply lookahead", _cube_correction
    )
    correction_parser.add_argument("--checkpoint", type=Path, required=True, help="the bot that plays and searches")
    correction_parser.add_argument(
        "--out", type=Path, required=True, help="run directory: samples.npz (reused by a rerun), correction.npz"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        args.run(args)
    except BackgammonError as error:  # bad input: configs, checkpoints, positions, a slower candidate
        print(f"error: {error}", file=sys.stderr)
        return 2
    except TargetError as error:  # a worker died; what was written is kept for a rerun
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as interrupt:  # Ctrl-C, or SIGTERM (Terminated): 128 + the signal's number
        print(f"interrupted: {interrupt}" if interrupt.args else "interrupted", file=sys.stderr)
        return 143 if isinstance(interrupt, Terminated) else 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
