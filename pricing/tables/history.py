"""What a table remembers of its past: snapshots, the price points settlement reads, and the
bounded maps that hold them."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final, Generic, TypeVar

from pricing.cards import Card
from pricing.errors import InvalidInput
from pricing.payout import MAX_HUNDREDTHS
from pricing.tables.events import Game, TablePhase
from pricing.tables.views import GameView

__all__ = [
    "MAX_STAKE_CENTS",
    "PRICE_HISTORY",
    "ROUND_HISTORY",
    "SEQ_HISTORY",
    "Bounded",
    "PricePoint",
    "SettleStatus",
    "Settlement",
    "Snapshot",
    "check_stake",
    "price_point",
]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A table as of one version: immutable, so it can be shared and cached freely."""

    table_id: str
    game: Game
    decks: int
    version: int
    last_seq: int
    view: GameView
    closed: bool = False

    @property
    def phase(self) -> TablePhase:
        return TablePhase.CLOSED if self.closed else self.view.phase


class SettleStatus(Enum):
    PENDING = "PENDING"
    WIN = "WIN"
    LOSE = "LOSE"
    VOID = "VOID"
    PUSH = "PUSH"


@dataclass(frozen=True, slots=True)
class Settlement:
    """``result``: the cards the bet settled on; ``outcome``: a side bet's outcome name;
    ``seat``: the seat the bet was on (0 in a game without seats); ``net_payout_hundredths``: a
    fixed-paytable bet's signed pay (-100 lost, -50 a half loss, 0 a push or no result)."""

    status: SettleStatus
    payout_hundredths: int
    returned_cents: int
    result: tuple[Card, ...] = ()
    outcome: str = ""
    seat: int = 0
    net_payout_hundredths: int = 0


@dataclass(frozen=True, slots=True)
class PricePoint:
    """What settlement needs of one version: its round, each dynamic bet's payout if open,
    and whether each fixed-paytable side bet was open."""

    round_id: int
    betting: bool
    payouts: Mapping[str, int | None]  # None: the bet was closed
    side_bets: Mapping[str, bool]


K = TypeVar("K")
V = TypeVar("V")


class Bounded(Generic[K, V]):
    """An insertion-ordered map that forgets its oldest entries beyond ``limit``. Most tables
    are idle: until a second entry comes, the one entry is held as a pair, with no
    ``OrderedDict`` (a few hundred bytes a table, three maps each)."""

    __slots__ = ("_held", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: OrderedDict[K, V] | tuple[K, V] | None = None

    def __len__(self) -> int:
        held = self._held
        return 0 if held is None else 1 if isinstance(held, tuple) else len(held)

    def values(self) -> list[V]:
        """Every value held, oldest first."""
        held = self._held
        if held is None:
            return []
        return [held[1]] if isinstance(held, tuple) else list(held.values())

    def get(self, key: K) -> V | None:
        held = self._held
        if held is None:
            return None
        if isinstance(held, tuple):
            return held[1] if held[0] == key else None
        return held.get(key)

    def put(self, key: K, value: V) -> None:
        held = self._held
        if held is None or (isinstance(held, tuple) and held[0] == key):
            self._held = (key, value) if self.limit > 0 else None
            return
        if isinstance(held, tuple):
            held = self._held = OrderedDict((held,))
        held[key] = value
        while len(held) > self.limit:
            held.popitem(last=False)


#: The largest stake ``Table.settle`` takes: 10**12 cents (ten billion in the table's currency).
#: Sized so the most a bet can return, stake + floor(stake × MAX_HUNDREDTHS / 100), stays below
#: 2**64: ``returned_cents`` is a uint64 on the wire.
MAX_STAKE_CENTS: Final = 10**12
assert MAX_STAKE_CENTS + MAX_STAKE_CENTS * MAX_HUNDREDTHS // 100 < 2**64


def check_stake(stake_cents: int) -> None:
    """A stake a bet or a position may have: 1 to ``MAX_STAKE_CENTS``; ``InvalidInput``
    naming ``stake_cents`` otherwise."""
    if not 1 <= stake_cents <= MAX_STAKE_CENTS:
        raise InvalidInput(
            f"stake_cents must be from 1 to {MAX_STAKE_CENTS}, got {stake_cents}",
            field="stake_cents",
        )


#: Defaults of the bounded histories: enough for any retry, and for settling any bet of the last
#: ~250 Hi-Lo decks (16 versions each); a few MB per table at most.
SEQ_HISTORY: Final = 256
PRICE_HISTORY: Final = 4096
ROUND_HISTORY: Final = 4096


#: The side bets' open flags of price points, each distinct one kept once: a table holds
#: 4,096 price points, and their flags are nearly always one of a few (every bet open while
#: betting, none while dealing), so 25 bets' flags cost a dictionary a table, not a version.
_SIDE_BET_FLAGS: dict[tuple[tuple[str, bool], ...], dict[str, bool]] = {}
_MAX_SIDE_BET_FLAGS: Final = 4096


def _side_bet_flags(flags: tuple[tuple[str, bool], ...]) -> dict[str, bool]:
    shared = _SIDE_BET_FLAGS.get(flags)
    if shared is None:
        shared = dict(flags)  # shared: never changed
        if len(_SIDE_BET_FLAGS) < _MAX_SIDE_BET_FLAGS:  # bounded: a hostile mix of bets
            _SIDE_BET_FLAGS[flags] = shared
    return shared


def price_point(snapshot: Snapshot) -> PricePoint:
    view = snapshot.view
    return PricePoint(
        view.round_id,
        snapshot.phase is TablePhase.BETTING,
        {b: p.payout_hundredths if p.open else None for b, p in view.prices.items()},
        _side_bet_flags(tuple((sb.bet, sb.open) for sb in view.side_bets)),
    )
