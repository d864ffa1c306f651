"""The layers, read from the imports: engine <- bot <- training, doors on top, door libraries only in doors.

- ``engine``: the rules and formats, numpy and the standard library only; numba only inside
  ``engine/kernels.py`` (the compiled move generator), which ``engine.compiled`` loads for big
  batches and only ``bot/kernels.py`` imports by name, so the engine works with numpy alone.
- ``bot`` (outside ``bot.doors``): decisions; imports ``engine`` and ``bot``, never
  ``bot.doors`` or ``training``; torch only inside ``bot/checkpoint.py``'s functions
  (reading or writing a training checkpoint), so serving never loads it.
- ``training``: may import ``engine`` and ``bot``, never ``bot.doors``.
- ``bot.doors``: the front doors; may import ``engine`` and ``bot``, not ``training``.
- Door libraries (argparse, sockets, HTTP servers and frameworks) only in ``bot.doors``
  and in a package's ``__main__.py`` command line (``bot/__main__.py`` starts ``bot.doors.cli``).
- ``bot.envs``: the environments for learning libraries (the ``envs`` extra); may import
  ``engine`` and ``bot``, nothing imports it; Gymnasium, PettingZoo and OpenSpiel only there.
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


def layer(path: Path) -> str:
    """'engine', 'bot', 'doors', 'envs' or 'training' for a module file of the project."""
    parts = path.relative_to(ROOT).parts
    if parts[:2] in (("bot", "doors"), ("bot", "envs")):
        return parts[1]
    return parts[0]


def imports(path: Path) -> list[tuple[str, bool]]:
    """(top-level dotted name, imported at module level) of every import in ``path``."""
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
ALLOWED = {
    "engine": {"engine"},
    "bot": {"engine", "bot"},
    "training": {"engine", "bot", "training"},
    "doors": {"engine", "bot"},
    "envs": {"engine", "bot"},
}
THIRD_PARTY = {
    "engine": {"numpy", "numba"},
    "bot": {"numpy", "tqdm", "torch", "numba"},
    "training": None,  # anything
    "doors": None,
    "envs": {"numpy", "gymnasium", "pettingzoo", "pyspiel", "open_spiel"},
}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_upward_or_a_door_library_outside_the_doors(path):
    where = layer(path)
    for name, module_level in imports(path):
        top = name.split(".")[0]
        if top in ("engine", "bot", "training"):
            inside = next((sub for sub in ("doors", "envs") if name.startswith(f"bot.{sub}")), top)
            entry = path.name == "__main__.py" and inside == "doors"  # ``python -m bot`` starts the command line
            assert inside in ALLOWED[where] or (where == inside in ("doors", "envs")) or entry, (
                f"{path.relative_to(ROOT)} ({where}) imports {name} ({inside})"
            )
        elif top in ENV_LIBRARIES:
            assert where == "envs", f"{path.relative_to(ROOT)} ({where}) imports {name}: only bot.envs may"
        elif top in DOOR_LIBRARIES:
            assert where == "doors" or path.name == "__main__.py", (
                f"{path.relative_to(ROOT)} ({where}) imports the door library {name}"
            )
        elif top not in STANDARD and THIRD_PARTY[where] is not None:
            assert top in THIRD_PARTY[where], f"{path.relative_to(ROOT)} ({where}) imports {name}"
            if top == "torch":
                assert path == ROOT / "bot" / "checkpoint.py" and not module_level, (
                    f"{path.relative_to(ROOT)} imports torch: serving must not"
                )
            if top == "numba":
                assert path in (ROOT / "bot" / "kernels.py", ROOT / "engine" / "kernels.py"), (
                    f"{path.relative_to(ROOT)} imports numba: only bot.kernels and engine.kernels may"
                )
        if name == "engine.kernels":
            assert path == ROOT / "bot" / "kernels.py", (
                f"{path.relative_to(ROOT)} imports engine.kernels: engine.compiled loads it when a batch is big"
            )


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
