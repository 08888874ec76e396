"""The command line's options of baccarat and Dragon Tiger tables (``--commission``,
``--tie-pays``, ``--close-at-rtp-bp``, their side bets and shuffle) as the rules message they
make, for ``simulate`` and ``quote``: one place for both commands."""

from __future__ import annotations

import argparse
from typing import Final

from pricing.cli.args import integer
from pricing.cli.common import offer_side_bets, shuffle_mode
from pricing.games.fixed_odds import MAX_CLOSE_AT_RTP_BP
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_number

__all__ = [
    "TWO_HAND_GAMES",
    "TWO_HAND_OPTIONS",
    "add_two_hand_rules",
    "close_at_rtp_bp",
    "set_two_hand_rules",
]

#: The two-hand games as the command line names them.
TWO_HAND_GAMES: Final = ("baccarat", "dragon-tiger")

#: Their options (dest -> the games that have them), for ``check_game_options``;
#: ``--close-at-rtp-bp`` is blackjack's too, and the command adds it there.
TWO_HAND_OPTIONS: Final = {
    "commission": ("baccarat",),
    "tie_pays": TWO_HAND_GAMES,
}

#: ``--commission``'s choices: the wire's ``Commission`` values, without their prefix.
_COMMISSIONS: Final = ("standard", "none", "ez")


def add_two_hand_rules(p: argparse._ActionsContainer) -> None:
    """``--commission``, ``--tie-pays`` and ``--close-at-rtp-bp``."""
    p.add_argument(
        "--commission", choices=_COMMISSIONS, type=str.lower, default=None,
        help="baccarat: standard (Banker pays 0.95, the default), none (a Banker win on 6 "
        "pays 1:2) or ez (a Banker win with a three-card 7 pushes)",
    )  # fmt: skip
    p.add_argument(
        "--tie-pays", type=int, default=None, metavar="N",
        help="baccarat: the tie pays N:1, 8 (default) or 9; dragon-tiger: 8 (default) or 11",
    )  # fmt: skip
    p.add_argument(
        "--close-at-rtp-bp", type=integer(0, MAX_CLOSE_AT_RTP_BP, "0: off"), default=None,
        metavar="BP",
        help="game protection (blackjack, baccarat, dragon-tiger): a side bet whose exact RTP "
        "for the next round is BP/10000 or more is not offered for that round, e.g. 10000: "
        "closed while a player would win (default 0: off)",
    )  # fmt: skip


def close_at_rtp_bp(args: argparse.Namespace) -> int:
    """``--close-at-rtp-bp`` (0 when left out)."""
    return int(args.close_at_rtp_bp or 0)


def set_two_hand_rules(
    request: pb.OpenTableRequest | pb.QuoteRequest | pb.AnalyzeRequest, args: argparse.Namespace
) -> None:
    """The rules of a baccarat or Dragon Tiger table the options describe, into ``request``
    (nothing for another ``args.game``); the server checks the values and names what is
    wrong."""
    rules: pb.BaccaratRules | pb.DragonTigerRules
    if args.game == "baccarat":
        rules = request.baccarat
        commission = (args.commission or "standard").upper()
        rules.commission = enum_number(pb.Commission, commission)  # type: ignore[assignment]
    elif args.game == "dragon-tiger":
        rules = request.dragon_tiger
    else:
        return
    rules.shuffle_mode = shuffle_mode(getattr(args, "mode", None), "depleting")
    if args.tie_pays is not None:
        rules.tie_pays = args.tie_pays
    rules.close_at_rtp_bp = close_at_rtp_bp(args)
    offer_side_bets(rules, args.side_bet)
