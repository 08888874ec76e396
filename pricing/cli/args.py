"""The checks ``pricing``'s commands make of their arguments before they touch a server.

A number out of range is a usage error naming the flag and its range (argparse prefixes the
flag: ``argument --decks: -1 is not allowed: use 0 to 8``); an option of another game is an
error naming the game it belongs to.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Mapping
from typing import NamedTuple

__all__ = [
    "UINT64_MAX",
    "Leg",
    "bet_list",
    "card_list",
    "check_game_options",
    "fraction",
    "integer",
    "position_leg",
    "seconds",
]

#: The largest version, round or stake the wire can carry (uint64).
UINT64_MAX = 2**64 - 1


def _range(low: float, high: float | None, note: str) -> str:
    span = f"{low} or more" if high is None else f"{low} to {high}"
    return f"use {span}{f' ({note})' if note else ''}"


def integer(low: int, high: int | None = None, note: str = "") -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high`` (None: no upper bound).

    >>> integer(0, 8, "0: the game's default")("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: -1 is out of range: use 0 to 8 (0: the game's default)
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value} is out of range: {_range(low, high, note)}")
        return value

    parse.__name__ = "whole number"  # argparse names the type in its own messages
    return parse


class Leg(NamedTuple):
    """One ``--leg`` of ``pricing settle-position``."""

    round_id: int
    version: int
    bet: str
    collect_cents: int


def position_leg(text: str) -> Leg:
    """An argparse ``type``: a position's leg as ``ROUND:VERSION:BET[:COLLECT_CENTS]``.

    >>> position_leg("3:12:HIGHER:500")
    Leg(round_id=3, version=12, bet='HIGHER', collect_cents=500)
    >>> position_leg("3:HIGHER")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '3:HIGHER' is not ROUND:VERSION:BET[:COLLECT_CENTS]
    """
    parts = text.split(":")
    if len(parts) not in (3, 4) or not parts[2]:
        raise argparse.ArgumentTypeError(f"{text!r} is not ROUND:VERSION:BET[:COLLECT_CENTS]")
    whole = integer(1, UINT64_MAX)
    collect = integer(0, UINT64_MAX)(parts[3]) if len(parts) == 4 else 0
    return Leg(whole(parts[0]), whole(parts[1]), parts[2], collect)


def card_list(text: str) -> list[str]:
    """An argparse ``type``: cards in one argument, apart by commas or blanks (each is read,
    and refused naming its place, by the service's own code).

    >>> card_list("8S,8H"), card_list(" AS  7D ")
    (['8S', '8H'], ['AS', '7D'])
    """
    return [card for card in re.split(r"[,\s]+", text) if card]


def bet_list(text: str) -> list[str]:
    """An argparse ``type``: bet names in one argument, apart by commas or blanks, upper-cased.

    >>> bet_list("player, banker,DRAGON_7")
    ['PLAYER', 'BANKER', 'DRAGON_7']
    """
    return [bet.upper() for bet in re.split(r"[,\s]+", text) if bet]


def _number(text: str, what: str = "a number") -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def seconds(low: float = 0.0, high: float = 3600.0) -> Callable[[str], float]:
    """An argparse ``type``: a number of seconds from ``low`` to ``high``."""

    def parse(text: str) -> float:
        value = _number(text, "a number of seconds")
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{text} seconds is out of range: use {low:g} to {high:g}"
            )
        return value

    parse.__name__ = "seconds"
    return parse


def fraction(text: str) -> float:
    """An argparse ``type``: a probability, 0 to 1.

    >>> fraction("0.25"), fraction("1")
    (0.25, 1.0)
    """
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is out of range: use 0 to 1")
    return value


def check_game_options(
    args: argparse.Namespace, game: str, options: Mapping[str, tuple[str, ...]]
) -> None:
    """Raise ``ValueError`` if an option given belongs to other games than ``game``.
    ``options`` maps each game-specific option's dest to the games that have it; an option
    left out of the command line is None (or False for a switch). The message names the flag
    its dest is made from, so such an option keeps argparse's own dest (``--side-bet``:
    ``side_bet``), never another name.

    >>> ns = argparse.Namespace(mode="continuous")
    >>> check_game_options(ns, "hilo", {"mode": ("blackjack",)})
    Traceback (most recent call last):
    ...
    ValueError: --mode is a blackjack option: not for hilo
    """
    for dest, games in options.items():
        if game not in games and getattr(args, dest) not in (None, False):
            flag = "--" + dest.replace("_", "-")
            named = (
                " or ".join(games)
                if len(games) < 3
                else (f"{', '.join(games[:-1])} or {games[-1]}")
            )
            raise ValueError(f"{flag} is a {named} option: not for {game}")
