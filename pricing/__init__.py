"""Exact remaining-deck odds and dynamic payouts for live-dealer card games.

The engines (``pricing.hilo``, ``pricing.blackjack``, ``pricing.goagae``) are pure functions of
the cards seen; ``pricing.service`` puts them behind gRPC.
"""

__version__ = "0.1.0"
