"""A ``.npz`` export is checked by its zip directory and ``.npy`` headers before numpy allocates any array."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from bot.evaluation.checkpoint import CheckpointError, load_evaluator, load_network

SHIPPED = Path(__file__).resolve().parents[1] / "checkpoints" / "default.npz"


def _npy_header(shape: tuple[int, ...], descr: str = "<f8", version: tuple[int, int] = (1, 0)) -> bytes:
    out = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    if version == (1, 0):
        np.lib.format.write_array_header_1_0(out, header)
    else:
        np.lib.format.write_array_header_2_0(out, header)
    return out.getvalue()


def _write_npz(path: Path, members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize("version", [(1, 0), (2, 0)])
def test_a_header_claiming_a_huge_array_is_refused_before_loading(tmp_path, version):
    # Tens of gigabytes claimed, a few bytes held.
    path = _write_npz(
        tmp_path / "huge.npz", {"format.npy": _npy_header((100_000, 100_000), version=version) + b"\0" * 64}
    )
    with pytest.raises(
        CheckpointError, match=r"'format.npy' claims float64\[100000, 100000\], more than the file holds"
    ):
        load_network(path)


def test_an_array_claiming_one_byte_more_than_it_holds_is_refused(tmp_path):
    path = _write_npz(tmp_path / "short.npz", {"w.npy": _npy_header((4,)) + b"\0" * 31})
    with pytest.raises(CheckpointError, match="more than the file holds"):
        load_network(path)


def test_a_compressed_member_is_refused(tmp_path):
    """A deflated member could inflate without bound; the project's exports are stored."""
    path = _write_npz(
        tmp_path / "bomb.npz", {"w.npy": _npy_header((1 << 20,)) + b"\0" * (8 << 20)}, zipfile.ZIP_DEFLATED
    )
    with pytest.raises(CheckpointError, match="claims more data than the file holds"):
        load_network(path)


@pytest.mark.parametrize("member", [b"not an array", _npy_header((2,), descr="|O") + b"\0" * 16])
def test_a_member_that_is_not_a_plain_array_is_refused(tmp_path, member):
    path = _write_npz(tmp_path / "odd.npz", {"w.npy": member})
    with pytest.raises(CheckpointError, match="checkpoint .*odd.npz"):
        load_network(path)


def test_the_shipped_export_passes_the_check():
    assert load_evaluator(SHIPPED) is not None
