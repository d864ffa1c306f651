"""Position classes: classification, the split-and-merge evaluator, multi-network checkpoints, shipping."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from bot.evaluation import bearoff as bo
from bot.evaluation.checkpoint import (
    CheckpointError,
    export_class_numpy,
    export_numpy,
    load_checkpoint,
    load_class_payload,
    load_class_payloads,
    load_evaluator,
    load_network,
    save_checkpoint,
    save_class_checkpoint,
)
from bot.evaluation.classes import (
    NETWORK_CLASSES,
    BearoffDatabases,
    ClassEvaluator,
    PositionClass,
    classify,
    crashed,
    exact_cube,
    over_probabilities,
    without_impossible_gammons,
)
from bot.equity.cube import CubeState, MatchCubeMWCs, MoneyCubeEquities, Owner, Verdict
from bot.facade import REPO_CHECKPOINT, Bot
from bot.evaluation.network import Network, NetworkConfig
from bot.equity.outcomes import invert
from engine import START, decode_position_id, flip
from tests.conftest import load_fixture
from training.torch_network import ValueNetwork
from training.ship import ship_classes


def board(mine: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """A board seen by the side on roll: its checkers by point (25 = bar), the opponent's by point in the
    side on roll's numbering (0 = the opponent's bar)."""
    b = np.zeros(26, dtype=np.int8)
    for point, n in mine.items():
        b[point] += n
    for point, n in theirs.items():
        b[point] -= n
    return b


CONTACT = START
RACE = board({8: 5, 6: 10}, {17: 5, 19: 10})
BEAROFF = board({1: 3, 2: 2, 5: 1}, {24: 2, 20: 3})  # six a side: inside the small databases
BIG_BEAROFF = board({1: 5, 6: 5}, {24: 5, 19: 5})  # ten a side: a race for the 6-checker databases
LOST = board({6: 15}, {})  # the opponent has borne off all 15: the side on roll loses a gammon
WON = board({}, {1: 15})  # the side on roll has none left, the opponent all 15 in its home: a backgammon


@pytest.fixture(scope="module")
def small_databases() -> BearoffDatabases:
    """Bear-off databases of up to 6 checkers (one-sided) and 4 (two-sided): built in memory in a second."""
    return BearoffDatabases(bo.build_one_sided(6, progress=False), bo.build_two_sided(4, progress=False))


def random_network(config: NetworkConfig, seed: int) -> ValueNetwork:
    torch.manual_seed(seed)
    network = ValueNetwork(config)
    with torch.no_grad():
        for parameter in network.parameters():
            parameter.normal_(0.0, 0.3)
    return network.eval()


@pytest.fixture(scope="module")
def nets() -> dict[str, ValueNetwork]:
    return {
        "contact": random_network(NetworkConfig(hidden=(8,)), 1),
        "race": random_network(NetworkConfig(encoding="tesauro", hidden=(6, 4), activation="relu"), 2),
    }


def as_served(network: Network, boards: np.ndarray) -> np.ndarray:
    """A network's probabilities of boards as a class evaluator gives them: the impossible gammons set to 0."""
    return without_impossible_gammons(boards, classify(boards), network.probabilities(boards))


def fixture_boards() -> np.ndarray:
    return np.array([decode_position_id(r["position_id"]) for r in load_fixture("move_choice.jsonl")])


# --- classification ------------------------------------------------------------------------


def test_classify_hand_made_boards():
    boards = np.stack([CONTACT, RACE, BEAROFF, BIG_BEAROFF, LOST, WON, flip(RACE), flip(BEAROFF)])
    expected = [
        PositionClass.CONTACT,
        PositionClass.RACE,
        PositionClass.BEAROFF,
        PositionClass.BEAROFF,
        PositionClass.OVER,
        PositionClass.OVER,
        PositionClass.RACE,
        PositionClass.BEAROFF,
    ]
    assert classify(boards).tolist() == expected
    # Databases of 6 checkers cover the small bear-off only; the big one is then a race.
    assert classify(boards, bearoff_checkers=6)[[2, 3]].tolist() == [PositionClass.BEAROFF, PositionClass.RACE]


def test_classify_contact_edge_cases():
    on_bar = board({25: 1, 1: 14}, {24: 15})  # a checker on the bar can hit: contact (crashed: 14 on the ace)
    passed = board({7: 15}, {8: 15})  # last checkers face each other: still no contact
    touching = board({9: 15}, {8: 15})  # the opponent's checker behind the side on roll's: contact (none back: late)
    outside = board({7: 1, 1: 14}, {24: 15})  # no contact, but a checker outside home: a race
    assert classify(np.stack([on_bar, passed, touching, outside])).tolist() == [
        PositionClass.CRASHED,
        PositionClass.RACE,
        PositionClass.LATE_CONTACT,
        PositionClass.RACE,
    ]


# Late contact: at most one checker a side in the other's home board (the side on roll's 19-24) or on the bar.
ONE_BACK_EACH = board({24: 1, 13: 5, 8: 3, 6: 6}, {1: 1, 12: 5, 17: 3, 19: 6})  # late contact
TWO_BACK = board({24: 2, 13: 4, 8: 3, 6: 6}, {1: 1, 12: 5, 17: 3, 19: 6})  # the side on roll has two back: contact
THEIRS_ON_BAR = board({13: 6, 8: 3, 6: 6}, {0: 1, 3: 1, 12: 4, 17: 3, 19: 6})  # one on the bar, one in: contact
MINE_ON_BAR = board({25: 1, 13: 5, 8: 3, 6: 6}, {2: 1, 12: 5, 17: 3, 19: 6})  # one each, the bar counts: late
LATE_BOARDS = (ONE_BACK_EACH, TWO_BACK, THEIRS_ON_BAR, MINE_ON_BAR)


def test_late_contact_counts_the_checkers_back_of_each_side():
    boards = np.stack(LATE_BOARDS)
    late, contact = PositionClass.LATE_CONTACT, PositionClass.CONTACT
    assert classify(boards).tolist() == [late, contact, contact, late]
    assert classify(flip(boards)).tolist() == classify(boards).tolist()  # the test is the same for either side


# GNU Backgammon's crashed test, counted by hand (the opponent's anchor on the 4-point keeps contact).
STACKED = board({1: 5, 2: 5, 6: 3, 8: 2}, {4: 2, 12: 13})  # 15 left, ace 5, deuce 5: 15 - 10 + 1 = 6: crashed
NEARLY_STACKED = board({1: 5, 2: 4, 6: 4, 8: 2}, {4: 2, 12: 13})  # 15 - 9 + 1 = 7: contact
ACE_HEAVY = board({1: 9, 6: 4, 8: 2}, {4: 2, 12: 13})  # ace 9, deuce 0: 15 - 9 = 6: crashed
DEUCE_HEAVY = board({1: 1, 2: 10, 6: 4}, {4: 2, 12: 13})  # one on the ace: 15 - 10 + 1 = 6: crashed
FEW_LEFT = board({3: 2, 6: 2, 8: 2}, {4: 2, 12: 13})  # nine borne off, six left: crashed
HEALTHY = board({6: 5, 8: 3, 13: 5, 24: 2}, {4: 2, 12: 13})


def test_crashed_counts_checkers_beyond_stacked_low_points():
    boards = np.stack([STACKED, NEARLY_STACKED, ACE_HEAVY, DEUCE_HEAVY, FEW_LEFT, HEALTHY])
    assert crashed(boards).tolist() == [True, False, True, True, True, False]
    assert not crashed(flip(boards)).any()  # the opponent (two back, thirteen on the mid-point) is fine
    # Either side crashed makes a contact position crashed; without contact it stays a race.
    assert classify(boards).tolist() == [PositionClass.CRASHED, PositionClass.CONTACT] + [PositionClass.CRASHED] * 3 + [
        PositionClass.CONTACT
    ]
    assert classify(flip(boards)).tolist() == classify(boards).tolist()
    collapsed_race = board({1: 8, 2: 4, 7: 3}, {24: 15})[None]  # 15 - 12 + 1 = 4, but no contact left
    assert crashed(collapsed_race)[0] and classify(collapsed_race)[0] == PositionClass.RACE


def test_classify_agrees_with_the_definitions():
    from bot.evaluation.encoding import is_race
    from bot.equity.outcomes import is_finished
    from engine import afterstates

    positions = fixture_boards()
    children, _ = afterstates(positions, np.array([r["dice"] for r in load_fixture("move_choice.jsonl")]))
    boards = np.concatenate([positions, children, flip(children), np.stack([LOST, WON, flip(LOST)])])
    over = is_finished(boards) | is_finished(flip(boards))
    collapsed = crashed(boards) | crashed(flip(boards))
    back = np.maximum(boards[:, 19:26], 0).sum(axis=1), np.maximum(flip(boards)[:, 19:26], 0).sum(axis=1)
    late = (back[0] <= 1) & (back[1] <= 1)
    expected = np.where(
        over,
        PositionClass.OVER,
        np.where(
            bo.is_bearoff(boards),
            PositionClass.BEAROFF,
            np.where(
                is_race(boards),
                PositionClass.RACE,
                np.where(
                    collapsed, PositionClass.CRASHED, np.where(late, PositionClass.LATE_CONTACT, PositionClass.CONTACT)
                ),
            ),
        ),
    )
    assert (classify(boards) == expected).all()
    assert set(classify(boards).tolist()) == set(PositionClass)


def test_game_over_probabilities_are_exact():
    five = over_probabilities(np.stack([LOST, WON]))
    assert five.tolist() == [[0, 0, 0, 1, 0], [1, 1, 1, 0, 0]]


# --- split and merge -------------------------------------------------------------------------


class Counting:
    """A model that counts its calls and checks it only sees boards of one class."""

    def __init__(self, model, kind: int, bearoff_checkers: int) -> None:
        self.model, self.kind, self.calls, self.checkers = model, kind, 0, bearoff_checkers

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        self.calls += 1
        assert (classify(boards, self.checkers) == self.kind).all()
        return self.model.probabilities(boards)


def test_split_and_merge_keeps_order_and_matches_per_class(nets, small_databases):
    boards = np.concatenate([fixture_boards(), np.stack([BEAROFF, BIG_BEAROFF, LOST, WON, RACE, CONTACT, STACKED])])
    boards = boards[np.random.default_rng(3).permutation(len(boards))]
    contact = Counting(Network(nets["contact"].config, nets["contact"].state_dict()), PositionClass.CONTACT, 6)
    race = Counting(Network(nets["race"].config, nets["race"].state_dict()), PositionClass.RACE, 6)
    other = random_network(NetworkConfig(hidden=(5,)), 3)
    collapsed = Counting(Network(other.config, other.state_dict()), PositionClass.CRASHED, 6)
    late_net = random_network(NetworkConfig(hidden=(6,)), 4)
    late = Counting(Network(late_net.config, late_net.state_dict()), PositionClass.LATE_CONTACT, 6)
    evaluator = ClassEvaluator(
        {"contact": contact, "race": race, "crashed": collapsed, "late_contact": late}, small_databases
    )
    five = evaluator.probabilities(boards)
    classes = classify(boards, 6)
    assert set(classes.tolist()) == set(PositionClass)
    assert contact.calls == race.calls == collapsed.calls == late.calls == 1
    for kind, model in (
        (PositionClass.CONTACT, contact.model),
        (PositionClass.RACE, race.model),
        (PositionClass.CRASHED, collapsed.model),
        (PositionClass.LATE_CONTACT, late.model),
        (PositionClass.BEAROFF, small_databases),
        (PositionClass.OVER, None),
    ):
        rows = classes == kind
        expected = over_probabilities(boards[rows]) if model is None else model.probabilities(boards[rows])
        np.testing.assert_allclose(
            five[rows], without_impossible_gammons(boards[rows], classes[rows], expected), atol=1e-6
        )
        if kind in (PositionClass.OVER, PositionClass.BEAROFF):  # exact: the rules hold already
            np.testing.assert_allclose(five[rows], expected, atol=1e-6)
    # One board at a time gives the same answers.
    single = np.concatenate([evaluator.probabilities(b[None]) for b in boards[:40]])
    np.testing.assert_allclose(single, five[:40], atol=1e-6)


def test_race_crashed_and_late_contact_fall_back_to_contact_network(nets):
    network = Network(nets["contact"].config, nets["contact"].state_dict())
    evaluator = ClassEvaluator({"contact": network})
    boards = np.stack([RACE, CONTACT, STACKED, ONE_BACK_EACH, BIG_BEAROFF])
    expected = without_impossible_gammons(boards[:4], classify(boards[:4]), network.probabilities(boards[:4]))
    np.testing.assert_allclose(evaluator.probabilities(boards[:4]), expected, atol=1e-6)
    with pytest.raises(ValueError, match="contact network"):
        ClassEvaluator({"race": network})


def test_the_networks_give_no_gammon_or_backgammon_the_rules_rule_out(nets):
    network = Network(nets["contact"].config, nets["contact"].state_dict())
    evaluator = ClassEvaluator({"contact": network})
    borne_off = board({8: 5, 6: 10}, {17: 2, 19: 10})  # a race; the opponent has borne off 3
    straggler = board({3: 5, 2: 10}, {5: 1, 17: 4, 19: 10})  # a race; the opponent has one in our home board
    behind = board({20: 1, 6: 14}, {21: 5, 22: 5, 23: 5})  # a race; our last checker is in the opponent's home board
    mine_off = board({6: 12, 25: 1}, {3: 2, 17: 3, 19: 10})  # contact (we are on the bar); we have borne off 2
    boards = np.stack([RACE, borne_off, straggler, behind, mine_off, CONTACT])
    raw, five = network.probabilities(boards), evaluator.probabilities(boards)
    assert raw[:, 1:].min() > 0  # a softmax never says impossible
    # [win, win gammon, win backgammon, lose gammon, lose backgammon]; None: the network's value stands.
    zero = [
        [None, None, 0, None, 0],  # no contact, no checker of either side in the other's home board
        [None, 0, 0, None, 0],  # the opponent has borne off: we cannot win a gammon
        [None, None, None, None, 0],  # its straggler can still be caught there: a backgammon is possible
        [None, None, 0, None, None],  # we can still be backgammoned, and cannot backgammon
        [None, None, None, 0, 0],  # we have borne off: no gammon loss, even with contact
        [None] * 5,
    ]  # the opening: everything possible
    for row, wanted in enumerate(zero):
        for k, value in enumerate(wanted):
            assert five[row, k] == (0.0 if value == 0 else pytest.approx(raw[row, k], abs=1e-6)), (row, k)


def test_bearoff_plays_get_the_database_probabilities(nets, small_databases):
    bot = Bot(
        ClassEvaluator({"contact": Network(nets["contact"].config, nets["contact"].state_dict())}, small_databases)
    )
    for plies in (0, 1):
        plays = bot.rank_plays(BEAROFF, (4, 2), plies=plies)
        for ranked in plays:
            after = ranked.afterstate
            if plies == 0:
                expected = invert(small_databases.probabilities(flip(after)[None]))[0]
            else:  # every reply of the opponent is a bear-off too: the 1-ply mean of exact values
                from bot.search.nply import probabilities_at

                expected = probabilities_at(small_databases_evaluator(small_databases), after[None], 1)[0]
            np.testing.assert_allclose(ranked.probabilities, expected, atol=1e-6)
    best = bot.rank_plays(BEAROFF, (4, 2))[0]
    assert best.notation.count("off") >= 1  # bears off two checkers when it can


def small_databases_evaluator(databases: BearoffDatabases):
    from bot.evaluation.evaluator import ProbabilityEvaluator

    class Exact(ProbabilityEvaluator):
        def probabilities(self, boards):
            return databases.probabilities(boards)

    return Exact()


# --- checkpoints -------------------------------------------------------------------------------


def test_old_single_network_files_load_through_the_fallback(tmp_path, nets):
    network = nets["contact"]
    save_checkpoint(tmp_path / "old.pt", network)
    export_numpy(tmp_path / "old.npz", network.config, network.state_dict())
    boards = fixture_boards()
    for name in ("old.pt", "old.npz"):
        evaluator = load_evaluator(tmp_path / name)
        assert set(evaluator.networks) == {"contact"}
        assert isinstance(evaluator.bearoff, BearoffDatabases)
        rows = classify(boards) >= PositionClass.RACE  # races and every contact class: the one network
        np.testing.assert_allclose(
            evaluator.probabilities(boards[rows]), as_served(load_network(tmp_path / name), boards[rows]), atol=1e-6
        )
        with pytest.raises(CheckpointError, match="no race network"):
            load_evaluator(tmp_path / name, required=("race",))


@pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason="no shipped network")
def test_shipped_bot_plays_bearoffs_from_the_databases_and_each_class_with_its_network():
    _, mode, several = load_class_payloads(REPO_CHECKPOINT)
    bot = Bot.load(REPO_CHECKPOINT)
    assert isinstance(bot.evaluator, ClassEvaluator) and isinstance(bot.evaluator.bearoff, BearoffDatabases)
    assert mode == "databases" and several and set(bot.evaluator.networks) == set(NETWORK_CLASSES)
    assert bot.evaluator._models[PositionClass.BEAROFF] is bot.evaluator.bearoff
    boards = np.stack([STACKED, CONTACT, RACE, ONE_BACK_EACH])
    labels = ("crashed", "contact", "race", "late_contact")
    expected = [bot.evaluator.networks[label].probabilities(b[None]) for label, b in zip(labels, boards)]
    np.testing.assert_allclose(bot.evaluator.probabilities(boards), np.concatenate(expected), atol=1e-6)


@pytest.mark.parametrize("suffix", [".pt", ".npz"])
def test_multi_network_file_round_trips(tmp_path, nets, suffix):
    path = tmp_path / f"bot{suffix}"
    if suffix == ".pt":
        save_class_checkpoint(path, nets, training={"contact": {"games": 5}})
    else:
        export_class_numpy(path, {label: (n.config, n.state_dict()) for label, n in nets.items()})
    evaluator = load_evaluator(path, required=("contact", "race"))
    assert {label: n.config for label, n in evaluator.networks.items()} == {
        label: n.config for label, n in nets.items()
    }
    boards = fixture_boards()
    classes = classify(boards)
    for label, kind in (("contact", PositionClass.CONTACT), ("race", PositionClass.RACE)):
        rows = classes == kind
        np.testing.assert_allclose(
            evaluator.probabilities(boards[rows]), as_served(nets[label], boards[rows]), atol=1e-5
        )


def test_missing_class_is_a_checkpoint_error(tmp_path, nets):
    save_class_checkpoint(tmp_path / "race.pt", {"race": nets["race"]})
    export_class_numpy(tmp_path / "race.npz", {"race": (nets["race"].config, nets["race"].state_dict())})
    for name in ("race.pt", "race.npz"):
        with pytest.raises(CheckpointError, match="no contact network"):
            load_evaluator(tmp_path / name)
    export_class_numpy(tmp_path / "contact.npz", {"contact": (nets["contact"].config, nets["contact"].state_dict())})
    with pytest.raises(CheckpointError, match="no race network"):
        load_evaluator(tmp_path / "contact.npz", required=("race",))
    assert set(load_evaluator(tmp_path / "contact.npz").networks) == {"contact"}


def _npz(path: Path, manifest, arrays: dict) -> Path:
    np.savez(path, classes=np.array(manifest if isinstance(manifest, str) else json.dumps(manifest)), **arrays)
    return path


def test_malformed_files_are_checkpoint_errors(tmp_path, nets):
    good = tmp_path / "good.npz"
    export_class_numpy(good, {label: (n.config, n.state_dict()) for label, n in nets.items()})
    with np.load(good) as data:
        arrays = {name: data[name] for name in data.files if name != "classes"}
        manifest = json.loads(str(data["classes"]))
    contact_entry = manifest["networks"]["contact"]
    cases = {
        "bad JSON": ("{not json", arrays),
        "not a dict": ("[1, 2]", arrays),
        "wrong format": ({**manifest, "format": 99}, arrays),
        "networks not a table": ({**manifest, "networks": [1]}, arrays),
        "unknown class": ({**manifest, "networks": {**manifest["networks"], "crash": contact_entry}}, arrays),
        "bad bear-off mode": ({**manifest, "bearoff": "guess"}, arrays),
        "missing weight": (manifest, {k: v for k, v in arrays.items() if k != "contact/output_layer.bias"}),
        "stray arrays": (manifest, {**arrays, "other/x": np.zeros(3)}),
        "damaged weights": (manifest, {**arrays, "race/output_layer.bias": arrays["race/output_layer.bias"] + 1}),
        "bad config": (
            {**manifest, "networks": {"contact": {**contact_entry, "network_config": {"hidden": []}}}},
            {k: v for k, v in arrays.items() if k.startswith("contact/")},
        ),
    }
    for name, (bad_manifest, bad_arrays) in cases.items():
        path = _npz(tmp_path / f"{name.replace(' ', '_')}.npz", bad_manifest, bad_arrays)
        with pytest.raises(CheckpointError):
            load_evaluator(path)
    torch.save({"classes_format": 1, "bearoff": "databases", "networks": {"contact": {"format": 1}}}, tmp_path / "x.pt")
    torch.save({"classes_format": 2, "bearoff": "databases", "networks": {}}, tmp_path / "y.pt")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    (tmp_path / "junk.pt").write_bytes(b"not a zip")
    for name in ("x.pt", "y.pt", "junk.npz", "junk.pt", "absent.npz", "absent.pt"):
        with pytest.raises(CheckpointError):
            load_evaluator(tmp_path / name)


# --- shipping ------------------------------------------------------------------------------------


def test_ship_combines_networks_into_one_file(tmp_path, nets):
    sources = {}
    for label, network in nets.items():
        sources[label] = tmp_path / f"{label}-run.pt"
        save_checkpoint(sources[label], network, training={"games": 7, "wall_seconds": 2.0})
    metadata = ship_classes(sources, tmp_path / "shipped.pt")
    assert metadata["self_play_games"] == {"contact": 7, "race": 7} and metadata["training_wall_seconds"] == 4.0
    boards = fixture_boards()
    for suffix in (".pt", ".npz"):
        evaluator = load_evaluator(tmp_path / f"shipped{suffix}", required=("contact", "race"))
        rows = classify(boards) == PositionClass.RACE
        np.testing.assert_allclose(
            evaluator.probabilities(boards[rows]), as_served(nets["race"], boards[rows]), atol=1e-5
        )
    assert json.loads((tmp_path / "shipped.json").read_text())["network"]["race"]["encoding"] == "tesauro"
    with pytest.raises(ValueError, match="contact"):
        ship_classes({"race": sources["race"]}, tmp_path / "other.pt")


def test_ship_command_line(tmp_path, nets, capsys):
    from training.__main__ import main

    save_checkpoint(tmp_path / "a.pt", nets["contact"])
    save_checkpoint(tmp_path / "b.pt", nets["race"])
    assert (
        main(
            [
                "ship",
                "--contact",
                str(tmp_path / "a.pt"),
                "--race",
                str(tmp_path / "b.pt"),
                "--to",
                str(tmp_path / "multi.pt"),
            ]
        )
        == 0
    )
    assert set(load_evaluator(tmp_path / "multi.npz").networks) == {"contact", "race"}
    save_checkpoint(tmp_path / "c.pt", random_network(NetworkConfig(hidden=(5,)), 3))
    assert (
        main(
            [
                "ship",
                "--contact",
                str(tmp_path / "a.pt"),
                "--crashed",
                str(tmp_path / "c.pt"),
                "--late-contact",
                str(tmp_path / "b.pt"),
                "--to",
                str(tmp_path / "crashed.pt"),
            ]
        )
        == 0
    )
    assert set(load_evaluator(tmp_path / "crashed.npz").networks) == {"contact", "crashed", "late_contact"}
    assert json.loads((tmp_path / "crashed.json").read_text())["classes"] == {
        "bearoff": "databases",
        "race": "contact network",
        "crashed": "crashed",
        "late_contact": "late_contact",
    }
    # Training starts from a class's own network, else the contact network; an unknown class is refused.
    assert load_class_payload(tmp_path / "crashed.pt", "crashed")["network_config"]["hidden"] == [5]
    assert load_class_payload(tmp_path / "crashed.pt", "race")["network_config"]["hidden"] == [8]
    with pytest.raises(CheckpointError, match="position class 'bearoff'"):
        load_class_payload(tmp_path / "crashed.pt", "bearoff")
    # Readers of one network refuse the file, naming its classes and what reads it.
    for read in (load_checkpoint, load_network):
        with pytest.raises(
            CheckpointError, match=r"per position class \(contact, crashed, late_contact\).*load_class_payload"
        ):
            read(tmp_path / "crashed.pt")
    # A shipped bot gives its networks to a new one (one replaced); a class it lacks is refused, not filled in.
    assert (
        main(
            [
                "ship",
                "--contact",
                str(tmp_path / "crashed.pt"),
                "--crashed",
                str(tmp_path / "crashed.pt"),
                "--late-contact",
                str(tmp_path / "c.pt"),
                "--to",
                str(tmp_path / "replaced.pt"),
            ]
        )
        == 0
    )
    replaced, before = load_evaluator(tmp_path / "replaced.npz"), load_evaluator(tmp_path / "crashed.npz")
    boards = np.stack([CONTACT, STACKED, ONE_BACK_EACH])
    np.testing.assert_array_equal(replaced.probabilities(boards[:2]), before.probabilities(boards[:2]))
    np.testing.assert_array_equal(
        replaced.probabilities(boards[2:]), replaced.networks["crashed"].probabilities(boards[2:])
    )
    assert (
        main(
            [
                "ship",
                "--contact",
                str(tmp_path / "a.pt"),
                "--race",
                str(tmp_path / "crashed.pt"),
                "--to",
                str(tmp_path / "refused.pt"),
            ]
        )
        == 2
    )
    assert "no race network (the file has contact, crashed, late_contact)" in capsys.readouterr().err
    assert main(["ship", "--checkpoint", str(tmp_path / "a.pt"), "--to", str(tmp_path / "single.pt")]) == 0
    assert load_class_payloads(tmp_path / "single.npz")[2] is False
    assert main(["ship", "--to", str(tmp_path / "none.pt")]) == 2


def contact_only(nets) -> dict[str, Network]:
    return {"contact": Network(nets["contact"].config, nets["contact"].state_dict())}


def money_bearoffs_within(checkers: int) -> list[dict]:
    """Money records of ``fixtures/cube.jsonl`` that are bear-offs of at most ``checkers`` a side."""
    records = []
    for record in load_fixture("cube.jsonl"):
        b = decode_position_id(record["position_id"])
        if (
            record["match_length"] == 0
            and bo.is_bearoff(b[None])[0]
            and max(np.abs(b[b > 0]).sum(), -b[b < 0].sum()) <= checkers
        ):
            records.append(record)
    return records


def assert_gnubgs_money_cubes(bot: Bot, records: list[dict]) -> None:
    for record in records:
        b = decode_position_id(record["position_id"])
        decision = bot.evaluate(b, CubeState(cube=record["cube"], owner=record["owner"])).cube
        if record["decision"] != "NOT_AVAILABLE":
            assert decision.should_double == record["should_double"], record["position_id"]
        assert decision.no_double == pytest.approx(record["no_double"], abs=2e-3), record["position_id"]
        assert decision.double_take == pytest.approx(record["double_take"], abs=2e-3), record["position_id"]


def test_money_cube_in_the_two_sided_database_is_gnubgs(nets, small_databases):
    """Within the two-sided database, money cube equities are exact and GNU Backgammon's (it reads its own)."""
    records = money_bearoffs_within(4)  # the small databases' two-sided size
    assert len(records) >= 2
    assert_gnubgs_money_cubes(Bot(ClassEvaluator(contact_only(nets), small_databases)), records)


@pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason="no shipped network")
def test_shipped_bot_takes_money_cubes_in_bearoffs_from_the_database():
    records = money_bearoffs_within(bo.TWO_SIDED_CHECKERS)
    assert len(records) >= 5
    assert_gnubgs_money_cubes(Bot.load(REPO_CHECKPOINT), records)


def test_exact_redouble_where_the_cube_life_model_holds(nets, small_databases):
    """HQAAYAoAAAAAAA, four checkers a side, cube 2 owned: GNU Backgammon redoubles, the Janowski model did not."""
    bot = Bot(ClassEvaluator(contact_only(nets), small_databases))
    decision = bot.evaluate(decode_position_id("HQAAYAoAAAAAAA"), CubeState(cube=2, owner=Owner.ME)).cube
    assert decision.verdict is Verdict.REDOUBLE_TAKE


@pytest.mark.skipif(not REPO_CHECKPOINT.exists(), reason="no shipped network")
def test_shipped_bot_passes_a_match_double_the_cube_model_takes():
    """tQEAgFIBAAAAAA, 7-point match at 4-3: GNU Backgammon's 2-ply passes (1.230); solved exactly, so does the bot."""
    state = CubeState(cube=1, owner=Owner.CENTERED, match_length=7, score=(4, 3))
    decision = Bot.load(REPO_CHECKPOINT).evaluate(decode_position_id("tQEAgFIBAAAAAA"), state).cube
    assert decision.verdict is Verdict.DOUBLE_PASS and not decision.should_take
    assert decision.double_take == pytest.approx(1.21, abs=0.01)


def test_exact_cube_only_inside_the_database(nets, small_databases):
    evaluator = ClassEvaluator(contact_only(nets), small_databases)
    money, match = CubeState(), CubeState(cube=1, owner="centered", match_length=7, score=(2, 4))
    assert exact_cube(evaluator, BEAROFF, money) is None  # six a side: beyond the 4-checker two-sided table
    assert exact_cube(evaluator, RACE, money) is None and exact_cube(evaluator, CONTACT, match) is None
    inside = board({1: 2, 2: 1}, {24: 2, 23: 1})
    equities = exact_cube(evaluator, inside, money)
    assert isinstance(equities, MoneyCubeEquities)
    assert -1.0 <= equities.unavailable <= equities.centred <= equities.owned <= 1.0
    mwcs = exact_cube(evaluator, inside, match)
    assert isinstance(mwcs, MatchCubeMWCs) and 0.0 < mwcs.no_double < 1.0
    assert exact_cube(ClassEvaluator(contact_only(nets), None), inside, money) is None
