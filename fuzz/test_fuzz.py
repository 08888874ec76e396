"""Fuzzing (``make fuzz``; not part of ``make test``): the card parser, the request decoding
and handlers, and the table fold, each with many thousands of hypothesis examples. Nothing may
crash or raise anything but the service's own error types; a table is a pure fold of its
journal. ``FUZZ_EXAMPLES`` scales the run (default 20000 per target)."""

from __future__ import annotations

import asyncio
import os
from typing import Any, NoReturn

import grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.cards import Card, parse_card
from pricing.errors import IllegalMove, InvalidCard, InvalidInput, LimitExceeded
from pricing.games.events import CardRole, EndRound, ExposeCard, NewShoe, VoidRound
from pricing.server.service import PricingService, Undecodable, decoder
from pricing.tables import CloseTable, Game, SeqConflict, Table, TableConfig, replay
from pricing.text import BLANKS
from pricing.v1 import pricing_pb2 as pb

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20000"))
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None
)
SUIT_SYMBOLS = "♣♦♥♠"
#: What a caller may be told: never OK for junk it could not mean, never UNKNOWN or INTERNAL.
CLIENT_CODES = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.UNIMPLEMENTED,
}

card_like = st.one_of(
    st.text(max_size=6),
    st.text(alphabet="AaTtJjQqKk0123456789SsHhDdCc ♣♦♥♠\t\n\x1f\x85\u017f\u0131", max_size=5),
    st.binary(max_size=6).map(lambda b: b.decode("latin-1")),
)


@FUZZ
@given(card_like)
def test_the_card_parser_reads_a_card_or_says_why(text: str) -> None:
    try:
        card = parse_card(text)
    except InvalidCard as exc:
        assert len(str(exc)) < 300
        return
    assert isinstance(card, Card)
    core = text.strip(BLANKS)
    assert core.isascii() or any(s in core for s in SUIT_SYMBOLS)
    assert all(c.isalnum() or c in SUIT_SYMBOLS for c in core)
    assert parse_card(str(card)) is card  # the canonical text reads back to the same card


class Aborted(Exception):
    def __init__(self, code: grpc.StatusCode) -> None:
        super().__init__(code)
        self.code = code


class Context:
    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: object = ()
    ) -> NoReturn:
        assert len(details) <= 1100
        raise Aborted(code)


METHODS: dict[str, Any] = {
    "OpenTable": pb.OpenTableRequest,
    "ExposeCard": pb.ExposeCardRequest,
    "VoidRound": pb.VoidRoundRequest,
    "EndRound": pb.EndRoundRequest,
    "NewShoe": pb.NewShoeRequest,
    "CloseTable": pb.CloseTableRequest,
    "GetTable": pb.GetTableRequest,
    "Quote": pb.QuoteRequest,
    "Settle": pb.SettleRequest,
}
SERVICE = PricingService()
asyncio.run(
    SERVICE.rpc("OpenTable")(pb.OpenTableRequest(table_id="t", game=pb.GAME_HILO), Context())
)


def _valid_bodies() -> st.SearchStrategy[bytes]:
    """Well-formed messages with junk in their fields (then maybe cut or bit-flipped)."""
    text = st.one_of(st.sampled_from(["t", "AS", "10h", "HIGH", "ghost", ""]), st.text(max_size=8))
    number = st.one_of(st.integers(0, 12), st.just(2**64 - 1), st.integers(0, 2**32 - 1))
    open_table = st.builds(
        pb.OpenTableRequest, table_id=text, game=st.integers(0, 7), decks=st.integers(0, 10)
    )
    expose = st.builds(
        pb.ExposeCardRequest, table_id=text, seq=number, card=text, role=st.integers(0, 8)
    )
    quote = st.builds(
        pb.QuoteRequest,
        game=st.integers(0, 7),
        decks=st.integers(0, 9),
        exposed=st.lists(text, max_size=12),
        dealer_up_card=text,
        player_hand=st.lists(text, max_size=4),
        banker_hand=st.lists(text, max_size=4),
    )
    settle = st.builds(
        pb.SettleRequest,
        table_id=text,
        round_id=number,
        version=number,
        bet=text,
        stake_cents=number,
    )
    message = st.one_of(open_table, expose, quote, settle)
    return message.map(lambda m: m.SerializeToString())


bodies = st.one_of(st.binary(max_size=64), _valid_bodies())


@FUZZ
@given(st.sampled_from(sorted(METHODS)), bodies, st.integers(0, 64), st.integers(0, 255))
def test_any_body_gets_an_answer_or_a_client_status(
    method: str, body: bytes, cut: int, flip: int
) -> None:
    if body and flip:
        mangled = bytearray(body[: cut or None])
        if mangled:
            mangled[flip % len(mangled)] ^= flip
        body = bytes(mangled)
    request = decoder(METHODS[method], 64 * 1024)(body)  # never raises
    assert isinstance(request, METHODS[method] | Undecodable)
    try:
        asyncio.run(SERVICE.rpc(method)(request, Context()))
    except Aborted as aborted:
        assert aborted.code in CLIENT_CODES, (method, body)


events = st.one_of(
    st.builds(
        ExposeCard,
        st.sampled_from([parse_card(t) for t in ("2S", "3S", "4S", "5S", "6S", "7H", "KD", "AS")]),
        st.sampled_from(list(CardRole)),
    ),
    st.just(VoidRound()),
    st.just(EndRound()),
    st.just(NewShoe()),
    st.just(CloseTable()),
)


@settings(FUZZ, max_examples=max(1, EXAMPLES // 10))
@given(
    st.sampled_from(list(Game)),
    st.lists(st.tuples(st.integers(-1, 2), events), max_size=60),
)
def test_the_table_fold_refuses_cleanly_and_replays_to_the_same_table(
    game: Game, steps: list[tuple[int, Any]]
) -> None:
    table = Table("fuzz", TableConfig(game), keep_journal=True)
    for offset, event in steps:
        seq = max(0, table.snapshot.last_seq + offset)
        before = table.snapshot
        try:
            table.apply(seq, event)
        except (InvalidInput, IllegalMove, SeqConflict, LimitExceeded):
            assert table.snapshot is before  # refused: nothing changed
    again = replay(table.journal)
    assert again.snapshot == table.snapshot
