"""The README's test install: torch's CPU build where the machine has no NVIDIA GPU."""

import shutil

import pytest

torch = pytest.importorskip("torch")


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has an NVIDIA GPU: CUDA is its build")
def test_torch_is_the_cpu_build_without_a_gpu() -> None:
    assert torch.version.cuda is None, f"torch {torch.__version__} is a CUDA build: install it from the CPU index"
