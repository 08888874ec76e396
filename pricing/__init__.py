"""Exact remaining-deck odds and dynamic payouts for live-dealer card games.

The games (``pricing.games``) are pure functions of the cards seen; ``pricing.tables`` folds a
dealer's feed over them; ``pricing.server`` keeps live tables behind gRPC. docs/ARCHITECTURE.md
is the map.
"""

from __future__ import annotations

__version__ = "0.1.0"
