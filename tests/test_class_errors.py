"""benchmarks.class_errors: a set builds (and resumes) with the shape measure reads; the best choice costs nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from benchmarks.class_errors import choice_errors, main, perfect_reading
from benchmarks.common import DEFAULT_CHECKPOINT, load_records
from engine import decode_position_id, flip

TINY = ["--positions", "3", "--games", "20", "--trials", "36", "--truncate", "2"]


@pytest.fixture(scope="module")
def crashed_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three crashed positions with tiny truncated rollouts of their candidates."""
    out = tmp_path_factory.mktemp("class_errors") / "crashed_set.jsonl"
    main(["--build", "--position-class", "crashed", *TINY, "--out", str(out)])
    return out


@pytest.mark.slow
def test_build_writes_one_line_per_position_resumes_and_keeps_one_judge(crashed_set: Path) -> None:
    records = load_records(crashed_set)
    assert [r["index"] for r in records] == [0, 1, 2]
    for record in records:
        assert len(record["dice"]) == 2 and len(record["candidates"]) >= 2
        assert record["settings"]["trials"] == 36 and record["settings"]["truncate"] == 2
        for candidate in record["candidates"]:
            assert set(candidate) == {"move", "afterstate", "equity", "std_error", "zero_ply"}
            assert candidate["std_error"] >= 0
    main(["--build", "--position-class", "crashed", *TINY, "--out", str(crashed_set)])
    assert load_records(crashed_set) == records
    with pytest.raises(SystemExit, match="other settings"):
        main(["--build", "--position-class", "crashed", *TINY, "--trials", "72", "--out", str(crashed_set)])


def test_choosing_the_best_candidate_costs_nothing(crashed_set: Path) -> None:
    records = load_records(crashed_set)
    best = [max(r["candidates"], key=lambda c: c["equity"])["afterstate"] for r in records]

    def oracle(boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """The afterstates (mover's view) of the best candidates: the IDs have the opponent on roll."""
        return np.array([flip(decode_position_id(pid)) for pid in best])

    result = choice_errors(records, oracle)
    assert np.array_equal(result.errors, np.zeros(3)) and not result.clear.any()


def test_measure_prints_both_depths(crashed_set: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["--measure", "--fixture", str(crashed_set)])
    lines = capsys.readouterr().out.splitlines()
    assert "3 positions" in lines[0]
    assert [("0-ply:" in line, "1-ply:" in line) for line in lines[1:3]] == [(True, False), (False, True)]
    assert "paired" in lines[3] and "over 3 positions" in lines[3]


def test_a_bot_measured_against_itself_pairs_to_nothing(crashed_set: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["--measure", "--fixture", str(crashed_set), "--plies", "0", "--against", str(DEFAULT_CHECKPOINT)])
    lines = capsys.readouterr().out.splitlines()
    assert [("0-ply:" in line) for line in lines[1:3]] == [True, True]
    assert "paired: 0.00 +- 0.00 (95%) over 3 positions; 0 better, 0 worse (sign test p = 1.00)" in lines[3]


@pytest.mark.slow
def test_a_set_rolled_out_again_by_its_judge_on_its_dice_reads_the_same(
    crashed_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    again = tmp_path / "again.jsonl"
    main(["--rejudge", "42", "--fixture", str(crashed_set), "--out", str(again)])
    records, rolled = load_records(crashed_set), load_records(again)
    assert [r["candidates"] for r in rolled] == [r["candidates"] for r in records]
    assert rolled[0]["settings"] == {**records[0]["settings"], "seed": 42}  # the judge that built it, its seed
    main(["--rejudge", "42", "--fixture", str(crashed_set), "--out", str(again)])  # resumes: nothing left to do
    assert load_records(again) == rolled
    main(["--measure", "--fixture", str(crashed_set), "--plies", "0", "--second-judge", str(again)])
    assert (
        "two judges over 3 positions: the same best play in 100.0%; the first's best judged by the second errs "
        "0.00 +- 0.00 x1000, the second's by the first 0.00 +- 0.00" in capsys.readouterr().out
    )


@pytest.mark.slow
def test_other_dice_judge_the_same_candidates_differently(tmp_path: Path) -> None:
    built, again = tmp_path / "set.jsonl", tmp_path / "again.jsonl"
    longer = ["--positions", "1", "--games", "20", "--trials", "36", "--truncate", "3"]  # past the rotated rolls
    main(["--build", "--position-class", "crashed", *longer, "--out", str(built)])
    main(["--rejudge", "7", "--fixture", str(built), "--out", str(again)])
    records, rolled = load_records(built), load_records(again)
    assert [[c["afterstate"] for c in r["candidates"]] for r in rolled] == [
        [c["afterstate"] for c in r["candidates"]] for r in records
    ]
    assert [c["equity"] for r in rolled for c in r["candidates"]] != [
        c["equity"] for r in records for c in r["candidates"]
    ]


def test_pooling_a_set_with_itself_keeps_its_equities_and_halves_their_variance(
    crashed_set: Path, tmp_path: Path
) -> None:
    out = tmp_path / "pooled.jsonl"
    main(["--merge", str(crashed_set), str(crashed_set), "--out", str(out)])
    records, merged = load_records(crashed_set), load_records(out)
    assert [r["settings"]["trials"] for r in merged] == [72, 72, 72]
    assert [r["settings"]["seed"] for r in merged] == [[42, 42]] * 3
    for record, pooled in zip(records, merged):
        assert [c["equity"] for c in pooled["candidates"]] == pytest.approx([c["equity"] for c in record["candidates"]])
        assert [c["std_error"] for c in pooled["candidates"]] == pytest.approx(
            [c["std_error"] / np.sqrt(2) for c in record["candidates"]], abs=1e-5
        )


def test_a_pooled_set_is_rolled_out_again_with_the_trials_asked_for(crashed_set: Path, tmp_path: Path) -> None:
    pooled, again = tmp_path / "pooled.jsonl", tmp_path / "again.jsonl"
    main(["--merge", str(crashed_set), str(crashed_set), "--out", str(pooled)])
    main(["--rejudge", "42", "--trials", "36", "--fixture", str(pooled), "--out", str(again)])
    records, rolled = load_records(crashed_set), load_records(again)
    assert [r["settings"]["trials"] for r in rolled] == [36, 36, 36]
    assert [r["candidates"] for r in rolled] == [r["candidates"] for r in records]  # 36 trials on the same dice


def judged(seed: int, equities: list[list[float]]) -> list[dict]:
    """A hand-made set: one record a position, its candidates' equities as one judge of 72 trials read them."""
    return [
        {
            "index": index,
            "position_id": f"position {index}",
            "dice": [3, 1],
            "candidates": [
                {"move": f"play {k}", "afterstate": f"{index}.{k}", "equity": e, "std_error": 0.01}
                for k, e in enumerate(values)
            ],
            "settings": {"trials": 72, "seed": seed},
        }
        for index, values in enumerate(equities)
    ]


def test_a_perfect_players_floor_is_the_noise_between_judges() -> None:
    # Position 0: two plays the judges call level on average, their difference spread 0.02 between judges;
    # position 1: one play far ahead whatever the noise.
    sets = [judged(seed, [[0.0, d], [0.5, -0.5 + d]]) for seed, d in zip((1, 2, 3), (-0.02, 0.0, 0.02))]
    # A level pair read with noise N(0, s^2): the best drawn beats the first by s / sqrt(2 pi) on average.
    for judges in (1, 3):
        expected = 1000 * 0.02 / np.sqrt(judges) / np.sqrt(2 * np.pi) / 2  # half: position 1 reads 0
        assert perfect_reading(sets, judges) == pytest.approx(expected, rel=0.05)
    agreeing = [judged(seed, [[0.0, 0.01], [0.5, -0.5]]) for seed in (1, 2, 3)]
    assert perfect_reading(agreeing, 3) == pytest.approx(0.0, abs=1e-9)


def test_floor_prints_what_one_set_and_the_pooled_sets_would_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for seed, d in zip((1, 2, 3), (-0.02, 0.0, 0.02)):
        path = tmp_path / f"set{seed}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in judged(seed, [[0.0, d]])))
        paths.append(str(path))
    main(["--floor", *paths])
    found = re.search(
        r"about ([\d.]+) x1000 a move on one of the 3 sets, ([\d.]+) on all of them pooled \(216 trials\)",
        capsys.readouterr().out,
    )
    assert found is not None
    level = 1000 * 0.02 / np.sqrt(2 * np.pi)  # one level pair, its difference spread 0.02 between judges
    assert [float(x) for x in found.groups()] == pytest.approx([level, level / np.sqrt(3)], rel=0.05)
