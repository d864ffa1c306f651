"""The command line as the README starts it, from a working directory that holds a folder named ``bot``.

``python -m`` puts the working directory first on sys.path, so such a folder stands in for the package;
the README's forms, the ``nardy`` script and ``python -P -m bot``, run the real program wherever they start.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PYTHON_M_BOT

REPO = Path(__file__).resolve().parents[1]
SHADOW = "a folder named bot, not nardy"


@pytest.fixture
def shadowed(tmp_path: Path) -> Path:
    """A working directory with a ``bot`` package of its own that prints ``SHADOW``."""
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "__main__.py").write_text(f"print({SHADOW!r})\n")
    return tmp_path


def help_text(command: list[str], cwd: Path) -> str:
    """What ``command --help`` prints when started in ``cwd`` (the repository reachable as an install is)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([*command, "--help"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(sys.version_info < (3, 11), reason="python -P is Python 3.11's")
@pytest.mark.slow
def test_python_dash_p_runs_nardy_where_plain_dash_m_runs_the_folder(shadowed):
    assert help_text([sys.executable, "-m", "bot"], shadowed).strip() == SHADOW
    assert help_text(PYTHON_M_BOT, shadowed).startswith("usage: nardy ")


@pytest.mark.slow
def test_the_nardy_script_runs_nardy_beside_a_folder_named_bot(shadowed):
    script = shutil.which("nardy", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the nardy script is not installed beside this Python (pip install -e .)")
    assert help_text([script], shadowed).startswith("usage: nardy ")
