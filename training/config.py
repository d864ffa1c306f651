"""Typed, frozen training configuration: one TOML file, one override mechanism, for every command.

A config file's top-level keys and its ``[network]``, ``[selfplay]`` and ``[learning]``
tables configure ``train`` (recorded with every run); the tables ``[distill]``,
``[cube_correction]``, ``[pruner]``, ``[evaluate]`` and ``[ship]`` configure those
commands. Every key is optional (the defaults in the dataclasses); on the command line
``--set KEY=VALUE`` overrides one key of the command's part (``--set selfplay.workers=2``
for ``train``, ``--set epochs=4`` for ``distill``), the value read as TOML (a bare word is
a string). An unknown key, a value of the wrong type, a number outside its ``BOUNDS`` or a run
``name`` that is not a plain folder name is an error naming it, before any work starts.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence, TypeVar

from bot.evaluation.encoding import get_encoding
from engine.variant import NAMES as VARIANT_NAMES
from bot.evaluation.network import NetworkConfig
from engine.errors import BackgammonError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(BackgammonError):
    """A config file, override or value that cannot be used, with the offending key named."""


# The tables of a config file that configure the commands other than ``train``.
COMMAND_SECTIONS = ("distill", "cube_correction", "pruner", "evaluate", "ship")
MIN_CORRECTION_SAMPLES = 100  # a tenth is held out to choose the epoch
SEED = (0, 2**63 - 1)  # numpy takes any non-negative seed; 63 bits keep it one signed 64-bit integer
# Hidden layers of a network, and units in each (also the pruner's, the cube correction's, distill's widen).
HIDDEN_LAYERS = (1, 8)
HIDDEN_UNITS = (1, 4096)

# (lowest, highest) of every number of every command's settings, by config key: train's keys at the top
# level and in its tables, the other commands' under their table's name. A run allocates, loops and starts
# processes by these numbers, so one far past any real run is refused before anything starts, naming the
# key and the bounds; the highs leave room for runs much bigger than the shipped ones.
BOUNDS: dict[str, tuple[float, float]] = {
    "seed": SEED,
    "games": (1, 10**12),
    "checkpoint_every": (1, 10**12),
    "eval_every": (1, 10**12),
    "eval_games": (2, 10**6),
    "torch_threads": (0, 1024),
    "selfplay.parallel_games": (1, 1 << 16),  # games in flight in each worker
    "selfplay.workers": (0, 1024),  # processes (see WORKERS_PER_CORE) or Ray actors
    "selfplay.ray_max_restarts": (-1, 1000),
    "learning.batch_size": (1, 1 << 16),
    "learning.samples_per_update": (1, 1 << 20),
    "evaluate.games": (2, 10**7),
    "evaluate.seed": SEED,
    "pruner.games": (1, 10**7),
    "pruner.hidden": HIDDEN_UNITS,
    "pruner.epochs": (1, 10**4),
    "pruner.keep": (1, 1000),
    "pruner.seed": SEED,
    "cube_correction.samples": (MIN_CORRECTION_SAMPLES, 10**8),
    "cube_correction.workers": (1, 1024),  # processes (see WORKERS_PER_CORE)
    "cube_correction.hidden": HIDDEN_UNITS,
    "cube_correction.seed": SEED,
    "ship.speed_repeats": (1, 100),
    "ship.speed_trials": (36, 100_000),
    "ship.wall_seconds": (0.0, 1e9),
    "distill.games": (1, 10**9),
    "distill.max_positions": (0, 10**9),
    "distill.epsilon": (0.0, 1.0),
    "distill.alternatives": (0, 64),
    "distill.parallel_games": (1, 1 << 16),
    "distill.plies": (0, 3),  # each ply multiplies the work by about 21 rolls x their plays
    "distill.chunk": (1, 1 << 20),
    "distill.seed": SEED,
    "distill.epochs": (1, 10**4),
    "distill.batch_size": (1, 1 << 16),
    "distill.holdout": (0.0, 0.5),
    "distill.widen": (0, HIDDEN_UNITS[1]),
    "distill.workers": (1, 1024),  # processes (see WORKERS_PER_CORE)
    "distill.rollout_trials": (0, 100_000),
    "distill.rollout_truncate": (0, 1000),
}
# Worker processes per CPU core that a run may start (checked before the run starts).
WORKERS_PER_CORE = 4
# Keys that count processes on this machine (train's selfplay.workers only with backend "processes").
PROCESS_KEYS = ("cube_correction.workers", "distill.workers")
# A run name is a folder name under runs/, never a path.
NAME_LENGTH = 64
_NAME = re.compile(r"[A-Za-z0-9_.-]+")
# A config file's size, and how deep its tables and arrays nest (the shipped configs: 2).
MAX_CONFIG_BYTES = 1 << 20
MAX_NESTING = 16


@dataclass(frozen=True)
class SelfPlayConfig:
    # Games advancing together in each worker (one movegen call and one forward pass per ply).
    # Fewer games in flight learn more per game early on (the network learns from finished games,
    # so more games in flight means older targets); more are a little faster.
    parallel_games: int = 512
    # Probability that a move is chosen uniformly at random instead of the best one.
    epsilon: float = 0.0
    # Self-play workers; 0 = one per CPU core (of the Ray cluster with backend "ray").
    # With "processes", 1 = play in the learner's process; with "ray", every worker is an actor.
    workers: int = 0
    # "processes" (worker processes on this machine) or "ray" (Ray actors, on this machine or a
    # cluster; needs the `ray` extra: pip install 'nardy[ray]'). See docs/training.md.
    backend: str = "processes"
    # backend "ray": "" starts a local Ray instance with `workers` CPUs (stopped when the run ends);
    # "auto" or "HOST:PORT" joins a running cluster (`ray start --head`).
    ray_address: str = ""
    # backend "ray": times Ray restarts an actor that died (-1: without limit); its games in flight are lost.
    ray_max_restarts: int = 3


@dataclass(frozen=True)
class LearningConfig:
    # TD(lambda) trace decay: 0 = one-step TD targets, 1 = Monte Carlo (the game's result).
    td_lambda: float = 0.7
    # "adam" or "sgd".
    optimizer: str = "adam"
    learning_rate: float = 3e-3
    # Learning rate at the end of the run as a fraction of learning_rate, reached
    # log-linearly over the run's games (1 = constant).
    final_learning_rate_fraction: float = 1.0
    # Samples (positions) per gradient step.
    batch_size: int = 128
    # "cross_entropy" (6-outcome softmax against the target distribution) or "mse" (on the 5 probabilities).
    loss: str = "cross_entropy"
    # A worker sends its finished games' positions to the learner once it has this many.
    samples_per_update: int = 8192
    # Where the learner's gradient steps run: "cpu", "cuda" (an error without a GPU), or "auto"
    # (cuda when torch sees one, else cpu). Self-play, evaluation and checkpoints stay on the CPU.
    device: str = "cpu"


@dataclass(frozen=True)
class Config:
    # Run name: the run directory is runs/<name> unless --out says otherwise. A plain folder name
    # (letters, digits, "-", "_", "."), never a path.
    name: str = "td"
    # The game played: "backgammon" or "long_nardy" (engine.variant, with its default rule flags);
    # the network's encoding must read that game's boards ("long_nardy" for long nardy).
    game: str = "backgammon"
    # Seed of every random generator of the run.
    seed: int = 1
    # Total self-play games of the run.
    games: int = 1_000_000
    # Write latest.pt and a numbered checkpoint every this many games.
    checkpoint_every: int = 50_000
    # Evaluate against pubeval (long nardy: the heuristic player) and the previous evaluation's
    # network every this many games.
    eval_every: int = 50_000
    # Games per evaluation (played in pairs with the same dice and sides swapped).
    eval_games: int = 1000
    # torch threads of the learner process (0 = leave torch's default).
    torch_threads: int = 0
    network: NetworkConfig = field(default_factory=NetworkConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    learning: LearningConfig = field(default_factory=LearningConfig)

    def __post_init__(self) -> None:
        check_name(self.name)
        check_bounds(self)
        hidden = list(self.network.hidden)
        if not HIDDEN_LAYERS[0] <= len(hidden) <= HIDDEN_LAYERS[1]:
            raise ConfigError(
                f"config key 'network.hidden': must be {HIDDEN_LAYERS[0]}..{HIDDEN_LAYERS[1]} layers, got {hidden}"
            )
        if not all(HIDDEN_UNITS[0] <= units <= HIDDEN_UNITS[1] for units in hidden):
            raise ConfigError(
                f"config key 'network.hidden': must be {HIDDEN_UNITS[0]}..{HIDDEN_UNITS[1]} units in "
                f"each layer, got {hidden}"
            )
        check_positive("learning.learning_rate", self.learning.learning_rate)
        if self.eval_games % 2:
            raise ConfigError(
                f"config key 'eval_games': must be even (games are played in pairs), got {self.eval_games}"
            )
        if not 0.0 <= self.selfplay.epsilon <= 1.0:
            raise ConfigError(f"config key 'selfplay.epsilon': must be in [0, 1], got {self.selfplay.epsilon}")
        if not 0.0 <= self.learning.td_lambda <= 1.0:
            raise ConfigError(f"config key 'learning.td_lambda': must be in [0, 1], got {self.learning.td_lambda}")
        if not 0.0 < self.learning.final_learning_rate_fraction <= 1.0:
            raise ConfigError(
                "config key 'learning.final_learning_rate_fraction': must be in (0, 1], "
                f"got {self.learning.final_learning_rate_fraction}"
            )
        if self.learning.optimizer not in ("adam", "sgd"):
            raise ConfigError(
                f"config key 'learning.optimizer': expected 'adam' or 'sgd', got {self.learning.optimizer!r}"
            )
        if self.learning.loss not in ("cross_entropy", "mse"):
            raise ConfigError(
                f"config key 'learning.loss': expected 'cross_entropy' or 'mse', got {self.learning.loss!r}"
            )
        if self.selfplay.backend not in ("processes", "ray"):
            raise ConfigError(
                f"config key 'selfplay.backend': expected 'processes' or 'ray', got {self.selfplay.backend!r}"
            )
        if self.learning.device not in ("cpu", "cuda", "auto"):
            raise ConfigError(
                f"config key 'learning.device': expected 'cpu', 'cuda' or 'auto', got {self.learning.device!r}"
            )
        if self.game not in VARIANT_NAMES:
            raise ConfigError(f"config key 'game': expected one of {sorted(VARIANT_NAMES)}, got {self.game!r}")
        encoding = get_encoding(self.network.encoding)
        if encoding.game != self.game:
            raise ConfigError(
                f"config key 'network.encoding': {encoding.name!r} reads {encoding.game} boards, "
                f"but the game is {self.game} (game = {self.game!r})"
            )

    @property
    def workers(self) -> int:
        """Self-play worker processes, resolved: the configured number, or the core count."""
        return self.selfplay.workers or os.cpu_count() or 1

    def to_dict(self) -> dict[str, Any]:
        """Plain data (as TOML would give it) for checkpoints and the run directory."""
        data = dataclasses.asdict(self)
        data["network"] = self.network.to_dict()
        return data

    def replace(self, **changes: Any) -> Config:
        """A copy with top-level keys changed (e.g. ``games`` from the command line)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class EvaluateSettings:
    """``[evaluate]``: cubeless money games of a checkpoint against an opponent."""

    games: int = 1000  # played in pairs with the same dice and sides swapped, so even
    seed: int = 1  # seed of the dice

    def __post_init__(self) -> None:
        check_bounds(self, "evaluate")
        if self.games % 2:
            raise ConfigError(f"config key 'evaluate.games': expected an even number of at least 2, got {self.games}")


@dataclass(frozen=True)
class PrunerSettings:
    """``[pruner]``: the rollouts' move pruner, fitted to a bot's own evaluations."""

    games: int = 2000  # self-play games that give the positions
    hidden: int = 48  # hidden units of the pruner
    epochs: int = 8  # passes over the plays
    keep: int = 5  # plays a position keeps for the full networks
    seed: int = 1  # seed of the games and the fit

    def __post_init__(self) -> None:
        check_bounds(self, "pruner")


@dataclass(frozen=True)
class CubeCorrectionSettings:
    """``[cube_correction]``: the learned correction of the 0-ply cube model to the bot's own 2-ply lookahead."""

    samples: int = 24000  # positions near a cube decision; a tenth is held out to choose the epoch
    workers: int = 2  # processes searching the samples
    hidden: int = 64  # hidden units of the correction
    seed: int = 1  # seed of the games, cube states and fit

    def __post_init__(self) -> None:
        check_bounds(self, "cube_correction")


@dataclass(frozen=True)
class ShipSettings:
    """``[ship]``: making a training checkpoint the shipped bot, behind the speed gate."""

    speed_repeats: int = 3  # runs of each speed measure, the fastest counting
    speed_trials: int = 288  # rollout trials of each of the game's speed positions, a run
    wall_seconds: float = 0.0  # training wall time, when the checkpoint lacks it (0: unknown)

    def __post_init__(self) -> None:
        check_bounds(self, "ship")


def check_bounds(settings: Any, section: str = "") -> None:
    """Refuse a number of ``settings`` outside its ``BOUNDS``, naming the config key: train's Config
    (``section`` "") or the settings of the command reading the table ``section``."""
    for key, (low, high) in BOUNDS.items():
        table, _, name = key.rpartition(".")
        if section:
            if table != section:
                continue
            value = getattr(settings, name)
        elif table in COMMAND_SECTIONS:
            continue
        else:
            value = getattr(getattr(settings, table) if table else settings, name)
        if not low <= value <= high:  # NaN too
            raise ConfigError(f"config key {key!r}: must be {low}..{high}, got {value}")
        if key in PROCESS_KEYS:
            check_processes(key, value)


def check_processes(key: str, count: int) -> None:
    """Refuse more worker processes than ``WORKERS_PER_CORE`` per CPU core of this machine, naming the key."""
    cores = os.cpu_count() or 1
    if count > WORKERS_PER_CORE * cores:
        raise ConfigError(
            f"config key {key!r}: {count} processes is more than {WORKERS_PER_CORE} per CPU core "
            f"of this machine ({cores} cores)"
        )


def check_positive(key: str, value: float) -> None:
    """Refuse a learning rate (or another rate) that is not a positive finite number, naming the key."""
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"config key {key!r}: must be a positive number, got {value}")


def check_name(name: str) -> None:
    """Refuse a run name that is not a plain folder name: a path would put the run in any folder."""
    if name in (".", "..") or len(name) > NAME_LENGTH or not _NAME.fullmatch(name):
        raise ConfigError(
            f"config key 'name': expected a plain name (letters, digits, '-', '_' and '.', at most "
            f"{NAME_LENGTH} characters, not '.' or '..'), got {_shown(name)}"
        )


def _shown(text: str) -> str:
    """``text`` quoted for an error line, cut short when long."""
    return repr(text) if len(text) <= 80 else f"{text[:80]!r}... ({len(text)} characters)"


_SECTIONS = {"network": NetworkConfig, "selfplay": SelfPlayConfig, "learning": LearningConfig}


def _checked(cls: type, data: dict[str, Any], prefix: str) -> dict[str, Any]:
    """``data`` with every key known to ``cls`` and every value of its field's type."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for key, value in data.items():
        if not isinstance(key, str):
            raise ConfigError(f"config key {key!r} under {prefix or 'the top level'!r}: not a string")
        name = prefix + key
        if key not in fields:
            known = ", ".join(prefix + k for k in fields)
            raise ConfigError(f"config key {name!r}: unknown (known keys: {known})")
        if key in _SECTIONS and not prefix:
            if not isinstance(value, dict):
                raise ConfigError(f"config key {name!r}: expected a table")
            values[key] = _SECTIONS[key](**_checked(_SECTIONS[key], value, key + "."))
            continue
        default = fields[key].default
        factory = fields[key].default_factory
        if default is dataclasses.MISSING and factory is not dataclasses.MISSING:
            default = factory()
        if isinstance(default, bool) or isinstance(default, str):
            ok = isinstance(value, type(default))
        elif isinstance(default, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif isinstance(default, float):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            value = float(value) if ok else value
        elif isinstance(default, tuple):  # lists: of the type of the default's items, strings when it has none
            item = type(default[0]) if default else str
            ok = isinstance(value, (list, tuple)) and all(_is(v, item) for v in value)
            value = tuple(float(v) if item is float else v for v in value) if ok else value
        else:  # a required key without a default (distill's checkpoint): a string
            ok, default = isinstance(value, str), ""
        if not ok:
            raise ConfigError(f"config key {name!r}: expected {type(default).__name__}, got {value!r}")
        values[key] = value
    return values


def _is(value: Any, kind: type) -> bool:
    """Whether a TOML value is of ``kind`` (an int is a float; a bool is neither)."""
    if isinstance(value, bool) or kind is bool:
        return isinstance(value, bool) and kind is bool
    return isinstance(value, (int, float)) if kind is float else isinstance(value, kind)


def config_from_dict(data: dict[str, Any]) -> Config:
    """A Config from plain data (a parsed TOML file or a checkpoint's record)."""
    if not isinstance(data, dict):
        raise ConfigError(f"config: expected a table of keys, got a {type(data).__name__}")
    try:
        return Config(**_checked(Config, data, ""))
    except ValueError as error:  # NetworkConfig's own checks
        if isinstance(error, ConfigError):
            raise
        raise ConfigError(str(error)) from None


Settings = TypeVar("Settings")


class NotToml(ConfigError):
    """Text that is not TOML (an override's value is then a bare string)."""


# What in TOML text opens or closes an array or inline table, and what hides brackets (strings, comments).
_TOML_TOKEN = re.compile(
    r'"""(?:\\.|[^\\])*?"""|\'\'\'.*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]',
    re.DOTALL,
)


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """TOML ``text`` parsed, its arrays and tables nested at most ``MAX_NESTING`` deep (tomllib recurses
    into each level, and deeper data would not survive the checks either); ConfigError after ``where``."""
    too_deep = ConfigError(f"{where}arrays or tables nested more than {MAX_NESTING} deep")
    depth = 0
    for token in _TOML_TOKEN.finditer(text):
        if token.group() in ("[", "{"):
            depth += 1
            if depth > MAX_NESTING:
                raise too_deep
        elif token.group() in ("]", "}"):
            depth = max(depth - 1, 0)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise NotToml(f"{where}not valid TOML ({error})") from None
    stack: list[tuple[Any, int]] = [(data, 0)]  # dotted keys nest tables without brackets
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            raise too_deep
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack += [(child, depth + 1) for child in children if isinstance(child, (dict, list))]
    return data


def read_toml(path: str | os.PathLike | None) -> dict[str, Any]:
    """A config file's data ({} for no file); ConfigError naming the file if it cannot be read."""
    if path is None:
        return {}
    where = f"config {str(path)!r}: "
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise ConfigError(f"{where}cannot read ({error.strerror})") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{where}larger than {MAX_CONFIG_BYTES} bytes")
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        raise ConfigError(f"{where}not a text file") from None
    return parse_toml(text, where)


def with_overrides(data: dict[str, Any], assignments: Sequence[str]) -> dict[str, Any]:
    """``data`` with each ``KEY=VALUE`` of ``assignments`` set (dotted keys reach into tables).

    VALUE is read as a TOML value (``4``, ``0.5``, ``true``, ``[64, 32]``, ``"text"``); one that is
    not TOML is taken as a string, so ``--set opponent=random`` needs no quotes.
    """
    data = {key: dict(value) if isinstance(value, dict) else value for key, value in data.items()}
    for assignment in assignments:
        key, equals, raw = assignment.partition("=")
        where = f"override {_shown(assignment)}: "
        if not equals or not key.strip():
            raise ConfigError(f"{where}expected KEY=VALUE")
        *tables, name = key.strip().split(".")
        if len(tables) >= MAX_NESTING:
            raise ConfigError(f"{where}tables nested more than {MAX_NESTING} deep")
        try:
            value = parse_toml(f"value = {raw}", where)["value"]
        except NotToml:
            value = raw
        table = data
        for part in tables:
            table = table.setdefault(part, {})
            if not isinstance(table, dict):
                raise ConfigError(f"{where}{part!r} is not a table")
        table[name] = value
    return data


def command_settings(
    cls: type[Settings],
    section: str,
    path: str | os.PathLike | None,
    assignments: Sequence[str],
    base: dict[str, Any] | None = None,
    **given: Any,
) -> Settings:
    """The settings ``cls`` of the command reading ``[section]``: ``base`` (what a run recorded), the file's
    table, the overrides, then ``given`` (the command's own arguments, e.g. distill's checkpoint)."""
    where = f"config {str(path)!r}: " if path is not None else ""
    table = read_toml(path).get(section, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{where}config key {section!r}: expected a table")
    data = (base or {}) | with_overrides(table, assignments) | given
    try:
        return cls(**_checked(cls, data, section + "."))
    except ConfigError as error:
        raise ConfigError(f"{where}{error}") from None
    except ValueError as error:  # the settings' own checks (a network config's, say)
        raise ConfigError(f"{where}{section}: {error}") from None


def load_config(path: str | os.PathLike | None, assignments: Sequence[str] = ()) -> Config:
    """``train``'s Config: a TOML file's top level and tables (not the other commands'), then the overrides;
    ConfigError naming the file and the problem."""
    data = {key: value for key, value in read_toml(path).items() if key not in COMMAND_SECTIONS}
    try:
        return config_from_dict(with_overrides(data, assignments))
    except ConfigError as error:
        raise ConfigError(f"config {str(path)!r}: {error}" if path is not None else str(error)) from None


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


def config_to_toml(config: Config) -> str:
    """The resolved config as TOML text that ``load_config`` reads back to an equal Config."""
    data = config.to_dict()
    lines = [f"{key} = {_toml_value(value)}" for key, value in data.items() if key not in _SECTIONS]
    for section in _SECTIONS:
        lines += ["", f"[{section}]"]
        lines += [f"{key} = {_toml_value(value)}" for key, value in data[section].items()]
    return "\n".join(lines) + "\n"
