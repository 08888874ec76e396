"""A blackjack hand as the rules read it (docs/rules.md §3): its total, when the dealer's hand
is over and on what result, and what the side bets' outcome is on a dealt round's first cards.
"""

from __future__ import annotations

from collections.abc import Iterable

from pricing.cards import Card, Rank, parse_card
from pricing.errors import InvalidInput
from pricing.games.blackjack.paytables import (
    DEFAULT_ROYAL_MATCH,
    LOSE_HUNDREDTHS,
    PERFECT_PAIRS,
    PairsPaytable,
    RoyalMatchPaytable,
    pairs_paytable,
)
from pricing.games.blackjack.rules import DealerRule

__all__ = [
    "classify_pair",
    "classify_royal_match",
    "dealer_hand_result",
    "hand_total",
    "played_dealer_hand",
]


def _hand_total(cards: Iterable[Card]) -> tuple[int, bool]:
    """The best total of ``cards`` and whether it is soft (an ace counted as 11)."""
    hard = 0
    ace = False
    for card in cards:
        hard += min(int(card.rank), 10)
        ace = ace or card.rank is Rank.ACE
    if ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def hand_total(hand: Iterable[Card | str]) -> tuple[int, bool]:
    """A hand's best total and whether it is soft (an ace counted as 11): docs/rules.md
    §3.1, cards 2–10 at face value, J/Q/K 10, an ace 1 or 11.

    >>> hand_total(["AS", "6H"]), hand_total(["AS", "6H", "9D"]), hand_total(["KS", "QH", "2D"])
    ((17, True), (16, False), (22, False))
    """
    return _hand_total(parse_card(c) for c in hand)


def dealer_hand_result(
    hand: Iterable[Card | str], rule: DealerRule | str = DealerRule.S17
) -> str | None:
    """The dealer's final result if the hand ``hand`` (the dealer's cards in the order dealt)
    is over — ``"BJ"`` (a two-card 21: an ace and a ten-value card), ``"BUST"``, or ``"17"``
    to ``"21"`` where ``rule`` says stand — else ``None``: the dealer draws (docs/rules.md §3:
    S17 stands on all 17s, H17 hits soft 17). A one-card hand always draws.

    >>> dealer_hand_result(["AS", "KH"]), dealer_hand_result(["6S", "KH", "9D"])
    ('BJ', 'BUST')
    >>> dealer_hand_result(["AS", "6H"], "S17"), dealer_hand_result(["AS", "6H"], "H17")
    ('17', None)
    """
    cards = tuple(parse_card(c) for c in hand)
    dealer_rule = DealerRule.parse(rule)
    if len(cards) < 2:
        return None
    total, soft = _hand_total(cards)
    if len(cards) == 2 and total == 21:
        return "BJ"
    if total > 21:
        return "BUST"
    if total > 17 or (total == 17 and not (soft and dealer_rule is DealerRule.H17)):
        return str(total)
    return None


def played_dealer_hand(
    cards: Iterable[Card | str], rule: DealerRule | str = DealerRule.S17
) -> tuple[Card, ...]:
    """The dealer's hand made of ``cards``, the round's DEALER cards in the order dealt: all of
    them, up to the card that ends the hand (``dealer_hand_result``).

    Interpretation (docs/rules.md §3.2; the sheets say nothing of a DEALER card after the hand
    is over; by analogy with §1.4's procedure, where "an over-drawn card is a burn" and "an
    unnecessary exposure after the game has started does not change a result"): a DEALER card
    after the hand is over leaves the shoe but is not part of the hand.

    >>> played_dealer_hand(["10S", "8H", "5D"])  # stands on 18: 5D is a burn
    (Card.parse('10S'), Card.parse('8H'))
    """
    dealer_rule = DealerRule.parse(rule)
    hand: list[Card] = []
    for card in cards:
        hand.append(parse_card(card))
        if dealer_hand_result(hand, dealer_rule) is not None:
            break
    return tuple(hand)


def _two(cards: Iterable[Card | str], who: str) -> tuple[Card, Card]:
    pair = tuple(parse_card(c) for c in cards)
    if len(pair) != 2:
        raise InvalidInput(f"the {who}'s first two cards are needed, got {len(pair)}")
    return pair[0], pair[1]


def _suited_kq(a: Card, b: Card) -> bool:
    return a.suit == b.suit and {a.rank, b.rank} == {Rank.QUEEN, Rank.KING}


def classify_royal_match(
    player: Iterable[Card | str],
    dealer: Iterable[Card | str] = (),
    paytable: RoyalMatchPaytable = DEFAULT_ROYAL_MATCH,
) -> tuple[str, int]:
    """The Royal Match 21 outcome of a dealt round and what it pays in hundredths (``-100``:
    lost), by the outcomes ``side_bets`` counts: ``player`` is the player's first two cards,
    ``dealer`` the dealer's first two (fewer when the round ended before the dealer's second
    card: then there is no Crown).

    With Crown Treasure off a Crown is reported as ``ROYAL`` (it pays as one).

    >>> from pricing.games.blackjack.paytables import STANDARD_ROYAL_MATCH
    >>> classify_royal_match(["KS", "QS"], ["QH", "KH"])
    ('CROWN', 100000)
    >>> classify_royal_match(["KS", "QS"], ["QH", "KH"], STANDARD_ROYAL_MATCH)
    ('ROYAL', 2500)
    >>> classify_royal_match(["KS", "KS"]), classify_royal_match(["2D", "9C"], ["QH"])
    (('EASY', 250), ('LOSE', -100))
    """
    a, b = _two(player, "player")
    seen = tuple(parse_card(c) for c in dealer)
    pays = paytable.pays()
    if a.suit != b.suit:
        return "LOSE", LOSE_HUNDREDTHS
    if not _suited_kq(a, b):
        return "EASY", pays["EASY"]
    if len(seen) >= 2 and _suited_kq(seen[0], seen[1]) and paytable.crown_treasure:
        return "CROWN", pays["CROWN"]
    return "ROYAL", pays["ROYAL"]


def classify_pair(
    player: Iterable[Card | str], paytable: PairsPaytable | str = PERFECT_PAIRS
) -> tuple[str, int]:
    """The pair side bet's outcome on the player's first two cards and what it pays in
    hundredths (``-100``: lost): ``PERFECT`` (identical cards), ``COLOURED`` (same rank and
    colour, another suit), ``MIXED`` (same rank, other colour), or ``PAIR`` for an any-pair
    paytable.

    >>> classify_pair(["8H", "8H"]), classify_pair(["8H", "8D"]), classify_pair(["8H", "8S"])
    (('PERFECT', 2500), ('COLOURED', 1200), ('MIXED', 600))
    >>> classify_pair(["8H", "8S"], "any-pair"), classify_pair(["8H", "9H"], "any-pair")
    (('PAIR', 1100), ('LOSE', -100))
    """
    a, b = _two(player, "player")
    table = pairs_paytable(paytable)
    pays = table.pays()
    if a.rank != b.rank:
        return "LOSE", LOSE_HUNDREDTHS
    if "PAIR" in pays:
        return "PAIR", pays["PAIR"]
    if a.suit == b.suit:
        outcome = "PERFECT"
    elif a.suit.is_red == b.suit.is_red:
        outcome = "COLOURED"
    else:
        outcome = "MIXED"
    return outcome, pays[outcome]
