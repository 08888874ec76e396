"""Higher/Lower (docs/rules.md §6): the provider's printed pays from one RTP, the engine against a
pure-Python reference over random feeds in both shuffle modes, its refusals, and the table
adapter's quote, settlement and position cap on their own."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from pricing import _next_card
from pricing.cards import DECK, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidCard, InvalidInput, InvalidOption
from pricing.games import higher_lower as hl
from pricing.games.events import CardRole, EndRound, ExposeCard, NewShoe, VoidRound
from pricing.payout import PayRule
from pricing.tables import Game, TableConfig
from pricing.tables.adapters.higher_lower import HigherLowerAdapter
from tests.support.effort import effort
from tests.support.reference import higher_lower_ref as ref

ORDER = ref.ORDER

#: The provider's printed pays "for one" (stake included) by base rank: HIGHER and LOWER
#: (None: not offered), as the published Higher/Lower table gives them.
PRINTED_HIGHER_LOWER: dict[str, tuple[str | None, str | None]] = {
    "2": ("1.05", None),
    "3": ("1.15", "11.56"),
    "4": ("1.28", "5.78"),
    "5": ("1.44", "3.85"),
    "6": ("1.65", "2.89"),
    "7": ("1.92", "2.31"),
    "8": ("2.31", "1.92"),
    "9": ("2.89", "1.65"),
    "J": ("3.85", "1.44"),
    "Q": ("5.78", "1.28"),
    "K": ("11.56", "1.15"),
    "A": (None, "1.05"),
}


def for_one(shoe: hl.HigherLowerShoe, bet: str) -> str | None:
    """A bet's pay as the provider prints it: for one, stake included (None: not offered)."""
    price = shoe.prices[bet]
    return f"{(100 + price.payout_hundredths) / 100:.2f}" if price.open else None


def on_base(card: str, **kwargs: Any) -> hl.HigherLowerShoe:
    return hl.HigherLowerShoe(**kwargs).expose(parse_card(card), CardRole.RESULT)


def printed_pays(base: str) -> dict[str, str | None]:
    """Every bet's printed pay on ``base``: the exact rule pays a little more where the base
    card is inside the bet's own set (docs/rules.md §6.2)."""
    r, red = base[:-1], base[-1] in "DH"
    higher, lower = PRINTED_HIGHER_LOWER[r]
    return {
        "HIGHER": higher,
        "LOWER": lower,
        "SNAP": "12.06",
        "RANGE_2_5": "2.92" if r in "2345" else "2.89",
        "RANGE_6_9": "2.92" if r in "6789" else "2.89",
        "RANGE_J_A": "2.92" if r in ("J", "Q", "K", "A") else "2.89",
        "RED": "1.94" if red else "1.92",
        "BLACK": "1.92" if red else "1.94",
        "KING_OR_ACE": "5.90" if r in "KA" else "5.78",
        "ACE": "12.06" if r == "A" else "11.56",
    }


@pytest.mark.parametrize("base", [r + s for r in ORDER for s in "SH"])
def test_one_rtp_gives_the_printed_pays_on_every_base_card(base: str) -> None:
    shoe = on_base(base)
    assert shoe.phase is hl.Phase.BETTING
    assert {bet: for_one(shoe, bet) for bet in hl.BETS} == printed_pays(base)
    # the whole shoe but the base card: 6 × 48 − 1
    assert {p.remaining for p in shoe.prices.values()} == {287}


def test_the_printed_pays_pin_the_rtp_to_96_67_to_96_72_percent() -> None:
    """Every RTP from 96.67 % to 96.72 % gives the printed table, and no other: 96.70 % is one
    of them, and one basis point outside the band moves a printed pay."""

    def reproduces(rtp: int) -> bool:
        rule = PayRule(rtp, 5, 10_000)
        table = hl.HigherLowerPaytable.from_rules(dict.fromkeys(hl.BETS, rule))
        rules = hl.HigherLowerRules(paytable=table)
        shoes = [on_base(r + s, rules=rules) for r in ORDER for s in "SH"]
        return all(
            {bet: for_one(shoe, bet) for bet in hl.BETS} == printed_pays(str(shoe.base))
            for shoe in shoes
        )

    assert [rtp for rtp in range(9660, 9680) if reproduces(rtp)] == list(range(9667, 9673))
    assert hl.DEFAULT_RULE.rtp_bp == 9670


def test_the_clamp_minimum_lets_higher_on_a_2_pay_its_five_hundredths() -> None:
    price = on_base("2C").prices["HIGHER"]
    assert (price.wins, price.remaining, price.payout_hundredths, price.clamped) == (
        264,
        287,
        5,
        False,
    )


# ---------------------------------------------------------------------------------------------
# The engine against the reference, over random feeds


def as_rules(rules: hl.HigherLowerRules) -> dict[str, tuple[int, int, int]]:
    return {bet: rule.as_tuple() for bet, rule in rules.paytable.rules().items()}


def assert_same(shoe: hl.HigherLowerShoe, table: ref.RefTable) -> None:
    phase = {"COMPLETE": "SHOE_COMPLETE"}.get(table.phase, table.phase)
    assert shoe.phase.name == phase
    assert (None if shoe.base is None else str(shoe.base)) == table.base
    assert sorted(map(str, shoe.exposed)) == sorted(table.seen)
    assert shoe.cards_remaining == len(table.left())
    assert shoe.round_id == table.round_id
    want = table.prices()
    for bet, got in shoe.prices.items():
        w = want[bet]
        betting = shoe.phase is hl.Phase.BETTING
        assert (got.wins, got.remaining) == (w.wins, w.remaining), bet
        assert (got.open, got.payout_hundredths) == (
            (w.open, w.payout_hundredths) if betting else (False, 0)
        ), (bet, str(shoe.base), shoe.cards_remaining)


paytables = st.builds(
    lambda rtp, low, span: PayRule(rtp, low, low + span),
    st.integers(1, 10_000),
    st.integers(0, 300),
    st.integers(0, 20_000),
)


@st.composite
def feeds(draw: st.DrawFn) -> tuple[hl.HigherLowerRules, int, list[tuple[str, str]]]:
    decks = draw(st.integers(1, 8))
    burns = draw(st.integers(0, 4))
    mode = draw(st.sampled_from(hl.ShuffleMode))
    rule = draw(paytables)
    table = hl.HigherLowerPaytable.from_rules(
        {bet: draw(st.one_of(st.just(rule), paytables)) for bet in hl.BETS}
    )
    rules = hl.HigherLowerRules(paytable=table, shuffle=mode, burns=burns)
    # Few distinct cards, so that cards run out and depleting shoes complete.
    cards = draw(st.lists(st.sampled_from(ref.full_shoe(1)), min_size=1, max_size=6))
    kinds = st.sampled_from(["BURN", "RESULT", "RESULT", "VOID", "NEW_SHOE", "TEN"])
    steps = draw(st.lists(st.tuples(kinds, st.sampled_from(cards)), max_size=80))
    return rules, decks, steps


@pytest.mark.slow
@settings(max_examples=effort(suite=100, exhaustive=1_000), deadline=None)
@given(feeds())
def test_every_state_of_a_random_feed_is_the_references(
    feed: tuple[hl.HigherLowerRules, int, list[tuple[str, str]]],
) -> None:
    rules, decks, steps = feed
    shoe = hl.HigherLowerShoe(rules=rules, decks=decks)
    table = ref.RefTable(
        decks=decks,
        burns=rules.burns,
        continuous=rules.shuffle is hl.ShuffleMode.CONTINUOUS,
        rules=as_rules(rules),
    )
    for kind, card in steps:
        event = {
            "BURN": ExposeCard(parse_card(card), CardRole.BURN),
            "RESULT": ExposeCard(parse_card(card), CardRole.RESULT),
            "TEN": ExposeCard(parse_card("10" + card[-1]), CardRole.BURN),
            "VOID": VoidRound(),
            "NEW_SHOE": NewShoe(),
        }[kind]
        accepted = kind != "TEN" and table.step(kind, card)
        try:
            after = shoe.apply(event)
        except (IllegalMove, InvalidCard):  # a ten: the game has none
            assert not accepted, (kind, card)
            continue
        assert accepted, (kind, card)
        if after.outcome is not None and after.outcome.result is not None:
            base, result = after.outcome.result
            assert table.results[-1] == (after.outcome.round_id, str(base), str(result))
        shoe = after
        assert_same(shoe, table)


def test_a_round_is_still_dealt_with_exactly_its_cards_left() -> None:
    """6 burns and a result take 7 cards: a depleting shoe with 7 left opens a round, with 6
    left it is complete."""
    rules = hl.HigherLowerRules(shuffle=hl.ShuffleMode.DEPLETING, burns=6)
    cards = [c for c in DECK if c.rank.symbol != "10"]  # one deck: 48 = 1 + 5 × 7 + 12
    shoe = hl.HigherLowerShoe(rules=rules, decks=1).expose(cards[0], CardRole.RESULT)
    for i in range(1, 1 + 5 * 7, 7):
        for card in cards[i : i + 6]:
            shoe = shoe.expose(card, CardRole.BURN)
        shoe = shoe.expose(cards[i + 6], CardRole.RESULT)
    assert (shoe.phase, shoe.cards_remaining) == (hl.Phase.BETTING, 12)
    for card in cards[36:42]:
        shoe = shoe.expose(card, CardRole.BURN)
    shoe = shoe.void_round()  # 6 left after the void: no round can be dealt
    assert (shoe.phase, shoe.cards_remaining) == (hl.Phase.SHOE_COMPLETE, 6)
    shoe = hl.HigherLowerShoe(rules=rules, decks=1).expose(cards[0], CardRole.RESULT)
    for card in cards[1:41]:
        shoe = shoe.expose(card, CardRole.BURN)  # over-drawn burns: 7 left
    shoe = shoe.expose(cards[41], CardRole.RESULT)
    assert (shoe.phase, shoe.cards_remaining) == (hl.Phase.SHOE_COMPLETE, 6)
    shoe = hl.HigherLowerShoe(rules=rules, decks=1).expose(cards[0], CardRole.RESULT)
    for card in cards[1:40]:
        shoe = shoe.expose(card, CardRole.BURN)
    shoe = shoe.expose(cards[40], CardRole.RESULT)
    assert (shoe.phase, shoe.cards_remaining) == (hl.Phase.BETTING, 7)


# A whole shoe per example is dear to shrink: a failure is reported as generated, at once.
@pytest.mark.slow
@settings(
    max_examples=effort(suite=30, exhaustive=300),
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(
    st.integers(1, 2),
    st.integers(0, 6),
    st.sampled_from(hl.ShuffleMode),
    st.randoms(use_true_random=False),
)
def test_whole_shoes_dealt_to_their_end_are_the_references(
    decks: int, burns: int, mode: hl.ShuffleMode, rng: Any
) -> None:
    """Every card of a shoe dealt as a dealer would (the base, burns, results, now and then an
    over-drawn burn or a void) to the end of a depleting shoe: exactly burns + 1 cards left is
    still a round, one fewer is not."""
    rules = hl.HigherLowerRules(shuffle=mode, burns=burns)
    shoe = hl.HigherLowerShoe(rules=rules, decks=decks)
    table = ref.RefTable(decks=decks, burns=burns, continuous=mode is hl.ShuffleMode.CONTINUOUS)
    cards = ref.full_shoe(decks)
    rng.shuffle(cards)
    while shoe.phase is not hl.Phase.SHOE_COMPLETE and len(shoe.exposed) < 2 * len(cards):
        if rng.random() < 0.03 and shoe.phase in (hl.Phase.BETTING, hl.Phase.DEALING):
            kind, card = "VOID", ""
        else:
            left = table.left()
            card = rng.choice(left) if mode is hl.ShuffleMode.CONTINUOUS else left[0]
            over = rng.random() < 0.05 and len(left) > 2  # a result still to come
            kind = "BURN" if (shoe.burns_dealt < burns and shoe.base) or over else "RESULT"
        assert table.step(kind, card), (kind, card)
        if kind == "VOID":
            shoe = shoe.void_round()
        else:
            shoe = shoe.expose(parse_card(card), CardRole[kind])
        assert_same(shoe, table)
        if mode is hl.ShuffleMode.CONTINUOUS and shoe.round_id > 40:
            break
    if mode is hl.ShuffleMode.DEPLETING:
        assert shoe.phase is hl.Phase.SHOE_COMPLETE
        assert shoe.cards_remaining <= burns  # no round could be dealt from what is left


def test_an_empty_rules_message_is_the_published_table() -> None:
    """Every field left out keeps its default: 3 burns, a continuous shuffler, 96.70 % on
    every bet, no cap; rtp_bp sets every bet that bets does not name."""
    from pricing.v1 import pricing_pb2 as pb  # noqa: PLC0415
    from pricing.wire import config_from_proto  # noqa: PLC0415

    def rules_of(message: pb.HigherLowerRules) -> object:
        request = pb.OpenTableRequest(game=pb.GAME_HIGHER_LOWER, higher_lower=message)
        return config_from_proto(request.game, 0, request).rules

    assert rules_of(pb.HigherLowerRules()) == hl.HigherLowerRules()
    ace = pb.PayRule(rtp_bp=9000, min_hundredths=0, max_hundredths=5000)
    got = rules_of(pb.HigherLowerRules(rtp_bp=9500, bets={"ace": ace}))
    assert isinstance(got, hl.HigherLowerRules)
    want = {bet: PayRule(9500, 5, 10_000) for bet in hl.BETS} | {"ACE": PayRule(9000, 0, 5000)}
    assert got.paytable.rules() == want
    assert Game.HIGHER_LOWER.value == pb.GAME_HIGHER_LOWER


@pytest.mark.slow
@settings(max_examples=effort(suite=80, exhaustive=800), deadline=None)
@given(st.sampled_from(hl.BETS), st.sampled_from(DECK), st.sampled_from(DECK))
def test_bets_are_decided_as_the_reference_decides_them(bet: str, base: Any, card: Any) -> None:
    if "10" in (base.rank.symbol, card.rank.symbol):
        return
    assert hl.bet_wins(bet, base, card) == ref.wins(bet, str(base), str(card))


# ---------------------------------------------------------------------------------------------
# Closing a bet over par, and the refusals


def test_a_bet_that_would_pay_over_par_is_closed() -> None:
    """Near a depleting shoe's end HIGHER on a 2 can win on every card left; at 0.05 : 1 it
    would return more than the stake, so it is not offered."""
    assert _next_card.offer("HIGHER", 100, 101, (9670, 5, 10_000), True).open is False
    assert _next_card.offer("HIGHER", 100, 101, (9670, 5, 10_000), False).open is True
    # 264 of 287 at 1.05: 0.9659, under par, offered
    assert _next_card.offer("HIGHER", 264, 287, (9670, 5, 10_000), True).open is True
    # exactly at par (1.05 × 20/21 = 1) is still offered
    assert _next_card.offer("HIGHER", 20, 21, (9670, 5, 10_000), True).payout_hundredths == 5
    assert _next_card.offer("HIGHER", 20, 21, (9670, 5, 10_000), True).open is True


def test_a_depleting_shoe_completes_when_a_round_cannot_be_dealt() -> None:
    rules = hl.HigherLowerRules(shuffle=hl.ShuffleMode.DEPLETING, burns=3)
    shoe = hl.HigherLowerShoe(rules=rules, decks=1)
    cards = [c for c in DECK if c.rank.symbol != "10"]
    shoe = shoe.expose(cards[0], CardRole.RESULT)
    rest = cards[1:]
    while shoe.phase is hl.Phase.BETTING:
        for card in rest[:3]:
            shoe = shoe.expose(card, CardRole.BURN)
        shoe = shoe.expose(rest[3], CardRole.RESULT)
        rest = rest[4:]
    # 48 = 1 + 11 × 4 + 3: after 11 rounds 3 cards are left, fewer than a round takes
    assert (shoe.phase, shoe.cards_remaining, shoe.round_id) == (hl.Phase.SHOE_COMPLETE, 3, 12)
    with pytest.raises(IllegalMove, match="shoe is complete"):
        shoe.expose(rest[0], CardRole.BURN)
    assert shoe.new_shoe().phase is hl.Phase.OPENING


@pytest.mark.parametrize(
    ("steps", "error", "message"),
    [
        ([("10S", CardRole.BURN)], InvalidCard, "card 10S is not in this game's deck"),
        ([("2S", CardRole.RESULT), ("3S", CardRole.RESULT)], IllegalMove, "3 burns come"),
        ([("2S", CardRole.PLAYER)], InvalidInput, "CARD_ROLE_PLAYER is not used"),
        (
            [("2S", CardRole.RESULT)] + [("2S", CardRole.BURN)] * 5 + [("2S", CardRole.BURN)],
            CardNotInShoe,
            "card 2S is not in the shoe: it holds 6 of each",
        ),
    ],
)
def test_refusals_name_the_card_and_change_nothing(
    steps: list[tuple[str, CardRole]], error: type[Exception], message: str
) -> None:
    shoe = hl.HigherLowerShoe()
    *before, (card, role) = steps
    for text, r in before:
        shoe = shoe.expose(parse_card(text), r)
    with pytest.raises(error, match=message):
        shoe.expose(parse_card(card), role)


def test_no_end_round_and_no_void_before_the_base_card() -> None:
    with pytest.raises(IllegalMove, match="no EndRound"):
        on_base("5S").apply(EndRound())
    with pytest.raises(IllegalMove, match="no round to void"):
        hl.HigherLowerShoe().apply(VoidRound())


def test_rules_name_a_bad_option() -> None:
    with pytest.raises(InvalidOption, match="burns must be a whole number from 0 to 10, got 11"):
        hl.HigherLowerRules(burns=11)
    with pytest.raises(InvalidOption, match=r"max_position_payout_cents .* got -1"):
        hl.HigherLowerRules(max_position_payout_cents=-1)


# ---------------------------------------------------------------------------------------------
# The table adapter (pricing/tables/adapters/higher_lower.py)


def adapter_config(**rules: Any) -> tuple[HigherLowerAdapter, TableConfig]:
    adapter = HigherLowerAdapter()
    config = TableConfig(Game.HIGHER_LOWER, 0, hl.HigherLowerRules(**rules) if rules else None)
    return adapter, adapter.configure(config)


def test_a_continuous_quote_without_a_base_card_prices_the_full_shoe() -> None:
    """A continuous shuffler took every card seen back: with no base card out, the next card
    is one of all 288 (the base card alone is out when sent)."""
    adapter, config = adapter_config()
    seen = ["2S", "KD", "7H"]
    assert adapter.quote(config, seen).cards_remaining == 288
    assert adapter.quote(config, seen).prices["ACE"].remaining == 288
    assert adapter.quote(config, seen, base_card="AS").prices["ACE"].remaining == 287
    adapter, depleting = adapter_config(shuffle=hl.ShuffleMode.DEPLETING)
    assert adapter.quote(depleting, seen).cards_remaining == 285
    assert adapter.quote(depleting, seen, base_card="AS").cards_remaining == 284


@pytest.mark.parametrize(
    ("base", "result", "winners"),
    [
        ("2S", "KD", {"HIGHER", "RANGE_J_A", "RED", "KING_OR_ACE"}),
        ("KD", "2S", {"LOWER", "RANGE_2_5", "BLACK"}),
        ("AS", "AH", {"SNAP", "RANGE_J_A", "RED", "KING_OR_ACE", "ACE"}),
        ("9C", "9C", {"SNAP", "RANGE_6_9", "BLACK"}),
    ],
)
def test_the_adapter_decides_a_bet_on_the_base_then_the_result(
    base: str, result: str, winners: set[str]
) -> None:
    """``RoundResult.result_cards`` lists the base first: read the other way round, HIGHER
    and LOWER swap and the absolute bets read the base card."""
    adapter, config = adapter_config()
    cards = (parse_card(base), parse_card(result))
    assert {bet for bet in hl.BETS if adapter.bet_wins(config, bet, cards)} == winners


def test_the_position_cap_is_the_tables_own() -> None:
    adapter, config = adapter_config(max_position_payout_cents=250_000)
    assert adapter.position_cap_cents(config) == 250_000
    adapter, uncapped = adapter_config()
    assert adapter.position_cap_cents(uncapped) == 0


@pytest.mark.parametrize(
    ("mode", "ace_min", "refused"),
    [
        # continuous, 6 decks: an ace base leaves 23 aces of 287, the lowest chance to win
        (hl.ShuffleMode.CONTINUOUS, 1100, False),  # 12.00 for one × 23/287 = 0.96
        (hl.ShuffleMode.CONTINUOUS, 1200, True),  # 13.00 × 23/287 = 1.04: always closed
        # depleting: one ace left among 265 cards at best (22 aces out, then an ace base)
        (hl.ShuffleMode.DEPLETING, 26_400, False),  # 265.00 × 1/265 = 1: at par, offered
        (hl.ShuffleMode.DEPLETING, 26_500, True),
    ],
)
def test_a_table_may_not_have_a_bet_it_could_never_offer(
    mode: hl.ShuffleMode, ace_min: int, refused: bool
) -> None:
    table = hl.HigherLowerPaytable(ace=PayRule(9670, ace_min, max(ace_min, 10_000)))
    adapter, config = adapter_config(paytable=table, shuffle=mode)
    if not refused:
        adapter.check_offer(config)
        return
    with pytest.raises(InvalidOption, match="bet ACE could never be offered") as caught:
        adapter.check_offer(config)
    assert caught.value.field == 'higher_lower.bets["ACE"].min_hundredths'
    assert adapter.quote(config, [], base_card="AS").prices["ACE"].open is False  # still quoted


def burnt_out(mode: hl.ShuffleMode) -> hl.HigherLowerShoe:
    """A one-deck shoe on a base 2S whose round 1 burns every other card."""
    shoe = on_base("2S", rules=hl.HigherLowerRules(shuffle=mode), decks=1)
    for card in (c for c in DECK if c.rank.symbol != "10" and str(c) != "2S"):
        assert shoe.phase is not hl.Phase.SHOE_COMPLETE
        shoe = shoe.expose(card, CardRole.BURN)
    return shoe


@pytest.mark.parametrize("mode", list(hl.ShuffleMode))
def test_a_shoe_burnt_down_to_its_last_card_is_complete_and_its_round_void(
    mode: hl.ShuffleMode,
) -> None:
    """No card is left for a result, in a continuous shuffler too (its burns go back only
    once the round ends): the shoe is complete, as a Hi-Lo deck's last card ends it."""
    shoe = burnt_out(mode)
    assert (shoe.phase, shoe.cards_remaining) == (hl.Phase.SHOE_COMPLETE, 0)
    assert shoe.outcome == hl.RoundOutcome(1, 1, None)  # round 1 void: refunded
    assert not any(price.open for price in shoe.prices.values())
    with pytest.raises(IllegalMove, match="shoe is complete"):
        shoe.expose(parse_card("2S"), CardRole.RESULT)
    fresh = shoe.new_shoe()
    assert (fresh.phase, fresh.outcome, fresh.cards_remaining) == (hl.Phase.OPENING, None, 48)
    # Opening burns alone can burn a shoe out too: no base card can come.
    opening = hl.HigherLowerShoe(rules=hl.HigherLowerRules(shuffle=mode), decks=1)
    for card in (c for c in DECK if c.rank.symbol != "10"):
        opening = opening.expose(card, CardRole.BURN)
    assert (opening.phase, opening.outcome) == (hl.Phase.SHOE_COMPLETE, None)
    with pytest.raises(IllegalMove, match="no round to void"):
        opening.void_round()


def test_a_void_after_a_burn_out_is_taken_as_it_was_before_such_a_shoe_completed() -> None:
    """A journal written before may follow a burn-out with VoidRound: a continuous shuffler
    takes its burns back and opens round 2 on the same base; a depleting shoe stays complete.
    Round 1 ended (void) at the burn-out, so the void ends no round again."""
    again = burnt_out(hl.ShuffleMode.CONTINUOUS).void_round()
    assert (again.phase, again.round_id, again.cards_remaining) == (hl.Phase.BETTING, 2, 47)
    assert again.outcome is None and str(again.base) == "2S"
    done = burnt_out(hl.ShuffleMode.DEPLETING).void_round()
    assert (done.phase, done.round_id, done.outcome) == (hl.Phase.SHOE_COMPLETE, 2, None)
