"""The dealer's kernels, this tree's build against another revision's, in one run.

``pricing._blackjack`` (dealer outcomes), ``pricing._dealer_bust`` (Bust It and Buster) and
``pricing._analyzer`` (the main game's EVs and edge) all deal the dealer's hand. This times
the same calls on this tree's build (``pricing/``) and on another build loaded beside it under
other module names, alternating the two so that a busy machine slows both alike, and prints
each pair's best times and their ratio. The times are the thread's CPU time: waiting for a
core that other processes hold is not counted. Before timing, every call's results are
checked equal between the two builds: exact integers for the first two kernels, the same
doubles to the last bit for the analyzer.

    PYTHONPATH=. python bench/kernels.py                 # against HEAD's sources, built here
    PYTHONPATH=. python bench/kernels.py --against main  # against another revision
    PYTHONPATH=. python bench/kernels.py --before DIR    # against a build already in DIR

``--calls N --side before`` (or ``after``) only calls the cases, for valgrind's instruction
counts, which a busy machine does not disturb: the count of ``--calls 201`` less that of
``--calls 1``, over 200, is one call's.

The other revision's ``setup.py`` and ``ext/`` are built into a temporary folder (a minute on
two cores). Build this tree first (``make build``).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from _harness import best_time

ROOT = Path(__file__).resolve().parent.parent
#: The compiled modules the dealer's kernels are made of, each after those it cimports; a
#: build has those of its day (the analyzer's parts since it was split).
MODULES = (
    "_deck",
    "_analyzer_dealer",
    "_analyzer_play",
    "_analyzer_split",
    "_blackjack",
    "_dealer_bust",
    "_analyzer",
)
SEED = 20261207
ROUNDS = 15
#: The most after/before any case may take: beyond the noise of CPU times on a shared machine.
GOAL = 1.10

Kernels = dict[str, ModuleType]


def build(revision: str, into: Path) -> Path:
    """Build ``revision``'s kernels in ``into``; the folder holding the extension modules."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "setup.py", "ext"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    (into / "pricing").mkdir()  # where build_ext --inplace puts the modules
    subprocess.run(
        [sys.executable, "setup.py", "--quiet", "build_ext", "--inplace"],
        cwd=into,
        check=True,
        capture_output=True,
    )
    return into / "pricing"


def this_build() -> Kernels:
    """This tree's modules. They must be imported before another build's: a Cython module
    loaded under a second name first would be what the import of its own name returns."""
    found = {}
    for name in MODULES:
        try:
            found[name] = importlib.import_module(f"pricing.{name}")
        except ModuleNotFoundError:
            continue
    return found


def load(folder: Path) -> Kernels:
    """The modules built in ``folder``, as ``before.<name>``. While they load, each one loaded
    stands in ``sys.modules`` for this tree's module of its name, so that the build's kernels
    cimport their own build's parts; this tree's are put back after."""
    loaded: Kernels = {}
    replaced: dict[str, ModuleType | None] = {}
    try:
        for name in MODULES:
            path = next(folder.glob(f"{name}.*.so"), None)
            if path is None:
                continue
            spec = importlib.util.spec_from_file_location(f"before.{name}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            loaded[name] = module
            replaced.setdefault(f"pricing.{name}", sys.modules.get(f"pricing.{name}"))
            sys.modules[f"pricing.{name}"] = module
    finally:
        for key, module in replaced.items():
            if module is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = module
    return loaded


def shoe(decks: int, dealt: int) -> list[int]:
    """A seeded shoe's 52 card counts after ``dealt`` cards."""
    cards = [i for i in range(52) for _ in range(decks)]
    random.Random(SEED).shuffle(cards)
    counts = [0] * 52
    for i in cards[dealt:]:
        counts[i] += 1
    return counts


def values(counts: list[int]) -> list[int]:
    """The ten value counts (ace, 2 … 9, ten) of 52 card counts."""
    out = [0] * 10
    for i, n in enumerate(counts):
        out[min(i // 4, 9)] += n
    return out


def cases() -> list[tuple[str, Callable[[Kernels], object]]]:
    """``(name, call)``: the calls timed, each on one build's modules."""
    full8, dealt6, near_end = shoe(8, 0), shoe(6, 200), shoe(1, 36)
    v8, v6 = values(full8), values(dealt6)
    ace, five, ten = 0, 4 * 4, 9 * 4  # deck indices (rank - 1) * 4 + suit
    hands = [([10, 6], 10), ([8, 8], 6), ([1, 7], 9), ([5, 6], 5), ([2, 2], 3)]
    # Ten cards behind a dealer ace, 7s to tens: fewer than a dealer hand can draw, so the
    # analyzer draws level by level; none runs out.
    short = [0, 0, 0, 0, 0, 0, 1, 2, 1, 6]
    short_hands = [([10, 9], 1), ([10, 7], 1), ([9, 8], 1), ([10, 8], 1)]

    def hand_evs(k: Kernels, shoe_values: list[int]) -> object:
        out = []
        for hand, up in hands:
            left = list(shoe_values)
            for v in [*hand, up]:
                left[v - 1] -= 1
            out.append(k["_analyzer"].hand_evs(hand, up, left, False, True, True, 4))
        return out

    def tables(k: Kernels) -> object:
        # The analyzer's dealer-hand tables (in its dealer part once it was split), cleared:
        # each up card's is built again.
        vars(k.get("_analyzer_dealer", k["_analyzer"]))["_TABLES"].clear()
        return [
            k["_analyzer"].hand_evs([10, 6], up, v8, h17, False, True, 4)
            for up in range(1, 11)
            for h17 in (False, True)
        ]

    def bj(k: Kernels) -> ModuleType:
        return k["_blackjack"]

    return [
        ("dealer table, full 8 decks, S17", lambda k: bj(k).dealer_table_counts(full8, False)),
        ("dealer table, full 8 decks, H17", lambda k: bj(k).dealer_table_counts(full8, True)),
        ("dealer table, 6 decks less 200", lambda k: bj(k).dealer_table_counts(dealt6, False)),
        (
            "dealer hand A-5, 8 decks, H17",
            lambda k: bj(k).dealer_exact_hand_counts([ace, five], full8, True),
        ),
        (
            "dealer hand 10, 1 deck less 36",
            lambda k: bj(k).dealer_exact_hand_counts([ten], near_end, False),
        ),
        (
            "Bust It + Buster, full 8 decks, H17",
            lambda k: k["_dealer_bust"].dealer_bust_ways(full8, True),
        ),
        (
            "Bust It + Buster, 6 decks less 200",
            lambda k: k["_dealer_bust"].dealer_bust_ways(dealt6, False),
        ),
        ("5 hands' EVs, full 8 decks", lambda k: hand_evs(k, v8)),
        ("5 hands' EVs, 6 decks less 200", lambda k: hand_evs(k, v6)),
        (
            "4 hands' EVs v A, 10 cards left (levels)",
            lambda k: [
                k["_analyzer"].hand_evs(hand, up, short, False, True, True, 4)
                for hand, up in short_hands
            ],
        ),
        (
            "player edge, full 8 decks",
            lambda k: k["_analyzer"].edge(v8, False, True, 4, True, None),
        ),
        ("dealer hands' tables, 10 up cards x 2 rules", tables),
    ]


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:9.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:9.1f} us"


def compare(name: str, call: Callable[[Kernels], object], after: Kernels, before: Kernels) -> float:
    """Check both builds' results equal, time them in alternating rounds; after / before."""
    assert call(after) == call(before), f"{name}: the two builds disagree"
    best = {"after": float("inf"), "before": float("inf")}
    for round_ in range(ROUNDS):
        for side in ("after", "before") if round_ % 2 else ("before", "after"):
            kernels = after if side == "after" else before
            seconds = best_time(  # CPU time: the time others' processes hold the CPU is not ours
                lambda: call(kernels),  # noqa: B023
                min_total=0.01,
                repeats=3,
                clock=time.thread_time,
            )
            best[side] = min(best[side], seconds)
    ratio = best["after"] / best["before"]
    print(
        f"  {name:44s} before {fmt(best['before'])}  after {fmt(best['after'])}"
        f"  after/before {ratio:5.2f}"
    )
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD", help="the revision to build and compare")
    parser.add_argument("--before", type=Path, help="a folder holding a build to compare")
    parser.add_argument("-k", default="", help="only the cases whose name holds this")
    parser.add_argument(
        "--calls",
        type=int,
        metavar="N",
        help="no timing: call each case N times on one side (--side), for an instruction "
        "count under valgrind --tool=callgrind",
    )
    parser.add_argument("--side", choices=("after", "before"), default="after")
    args = parser.parse_args()
    after = this_build()
    with tempfile.TemporaryDirectory() as tmp:
        before = load(args.before or build(args.against, Path(tmp)))
        chosen = [(name, call) for name, call in cases() if args.k in name]
        if args.calls is not None:
            kernels = after if args.side == "after" else before
            for _, call in chosen:
                for _ in range(args.calls):
                    call(kernels)
            return 0
        label = args.before or args.against
        print(f"The dealer's kernels: this tree (after) against {label} (before), one run")
        print(f"  CPU time, best of {ROUNDS} alternating rounds; results checked equal first")
        ratios = [compare(name, call, after, before) for name, call in chosen]
        met = max(ratios) <= GOAL
        print(
            f"  highest after/before {max(ratios):.2f} (below 1: faster); "
            f"goal <= {GOAL:.2f}: {'met' if met else 'NOT met'}"
        )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
