"""The layers, read from the imports: each module imports only its own layer and those below it.

From the bottom: ``engine`` (rules and formats), then ``bot``'s layers ``equity`` (outcomes,
match equity table, cube arithmetic, resignations), ``evaluation`` (encodings, networks,
position classes, bear-off databases, checkpoints), ``search`` (n-ply, the cube decision,
rollouts), the facade (``bot/facade.py``: ``Bot``; ``bot/__init__.py`` names it), ``play``
(levels, duels, analysis); on top the doors (``bot.doors``), the learning environments
(``bot.envs``) and ``training``. Also:

- ``engine`` works with numpy alone; numba only inside ``engine/kernels.py``, which only
  ``bot/evaluation/kernels.py`` imports by name (``engine.compiled`` loads it for big batches);
  gammonview's ``gvformat`` only inside ``engine/xgfile.py``'s reader, on first use.
- torch only inside ``bot/evaluation/checkpoint.py``'s functions, so serving never loads it.
- Door libraries (argparse, sockets, HTTP servers and frameworks) only in ``bot.doors`` and in a
  package's ``__main__.py``; Gymnasium, PettingZoo and OpenSpiel only in ``bot.envs``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOOR_LIBRARIES = {"argparse", "socket", "socketserver", "http", "fastapi", "uvicorn", "starlette", "fastapi_offline"}
ENV_LIBRARIES = {"gymnasium", "pettingzoo", "pyspiel", "open_spiel"}
STANDARD = set(sys.stdlib_module_names)
BOT_LAYERS = ("equity", "evaluation", "search", "facade", "play")
BELOW = {layer: {"engine", *BOT_LAYERS[: i + 1]} for i, layer in enumerate(BOT_LAYERS)}
ALLOWED = {
    "engine": {"engine"},
    **BELOW,
    "api": {"equity", "facade"},  # bot/__init__.py: the public names
    "entry": {"doors"},  # bot/__main__.py starts the command line
    "doors": {"api", "doors", *BELOW["play"]},
    "envs": {"api", "envs", *BELOW["play"]},
    "training": {"api", "training", *BELOW["play"]},
}
SERVING = {"numpy", "tqdm", "torch", "numba"}
THIRD_PARTY = {
    "engine": {"numpy", "numba", "gvformat"},
    **{layer: SERVING for layer in (*BOT_LAYERS, "api", "entry")},
    "training": None,  # anything
    "doors": None,
    "envs": {"numpy", "gymnasium", "pettingzoo", "pyspiel", "open_spiel"},
}


def layer_of(dotted: str) -> str:
    """The layer of a project module named ``dotted`` (``bot.search.nply`` -> ``search``)."""
    parts = dotted.split(".")
    if parts[0] != "bot":
        return parts[0]
    if len(parts) == 1:
        return "api"
    return {"__main__": "entry", "__init__": "api"}.get(parts[1], parts[1])


def module_name(path: Path) -> str:
    """The dotted name of a module file of the project."""
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def imports(path: Path) -> list[tuple[str, bool]]:
    """(dotted name, imported at module level) of every import in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, id(node) in top_level))
    return found


MODULES = sorted(p for package in ("engine", "bot", "training") for p in (ROOT / package).rglob("*.py"))


def test_bot_is_laid_out_by_layer():
    """``ls bot/`` shows the layers, and no module sits outside one."""
    loose = {p.name for p in (ROOT / "bot").glob("*.py")}
    assert loose == {"__init__.py", "__main__.py", "facade.py"}
    packages = {p.name for p in (ROOT / "bot").iterdir() if (p / "__init__.py").exists()}
    assert packages == {*BOT_LAYERS} - {"facade"} | {"doors", "envs"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_upward_or_a_door_library_outside_the_doors(path):
    where = layer_of(module_name(path))
    where = "entry" if path == ROOT / "bot" / "__main__.py" else where
    for name, module_level in imports(path):
        top = name.split(".")[0]
        if top in ("engine", "bot", "training"):
            inside = layer_of(name)
            assert inside in ALLOWED[where], f"{path.relative_to(ROOT)} ({where}) imports {name} ({inside})"
        elif top in ENV_LIBRARIES:
            assert where == "envs", f"{path.relative_to(ROOT)} ({where}) imports {name}: only bot.envs may"
        elif top in DOOR_LIBRARIES:
            assert where == "doors" or path.name == "__main__.py", (
                f"{path.relative_to(ROOT)} ({where}) imports the door library {name}"
            )
        elif top not in STANDARD and THIRD_PARTY[where] is not None:
            assert top in THIRD_PARTY[where], f"{path.relative_to(ROOT)} ({where}) imports {name}"
            if top == "torch":
                assert path == ROOT / "bot" / "evaluation" / "checkpoint.py" and not module_level, (
                    f"{path.relative_to(ROOT)} imports torch: serving must not"
                )
            if top == "gvformat":
                assert path == ROOT / "engine" / "xgfile.py" and not module_level, (
                    f"{path.relative_to(ROOT)} imports gvformat: engine.xgfile reads .xg files with it on first use"
                )
            if top == "numba":
                assert path in (ROOT / "bot" / "evaluation" / "kernels.py", ROOT / "engine" / "kernels.py"), (
                    f"{path.relative_to(ROOT)} imports numba: only bot.evaluation.kernels and engine.kernels may"
                )
        if name == "engine.kernels":
            assert path == ROOT / "bot" / "evaluation" / "kernels.py", (
                f"{path.relative_to(ROOT)} imports engine.kernels: engine.compiled loads it when a batch is big"
            )


@pytest.mark.slow
def test_the_bot_and_every_door_start_without_torch():
    """Importing the package and each door, loading the shipped bot and a 0-ply hint never import torch,
    tensorboard or numba (the compiled kernels wait for a big batch), nor the learning libraries of ``bot.envs``."""
    doors = [p.stem for p in (ROOT / "bot" / "doors").glob("*.py") if p.stem != "__init__"]
    script = (
        "import sys, importlib\n"
        "import bot, bot.facade\n"
        f"for door in {doors!r}: importlib.import_module('bot.doors.' + door)\n"
        "from engine import decode_position_id\n"
        "bot.facade.Bot.load().rank_plays(decode_position_id('4HPwATDgc/ABMA'), (3, 1))\n"
        "print(sorted(m for m in ('torch', 'tensorboard', 'numba', 'gymnasium', 'pettingzoo', 'pyspiel')"
        " if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
