"""The game adapters: each plugs one engine into ``pricing.tables``.

An adapter turns its engine's state into the neutral ``GameView``, fills in and validates a
table's options, quotes without a table and settles bets with the engine's own rules; it holds
no game rule itself. ``pricing.tables.games`` lists them. Hi-Lo and Goa Gae share
``single_deck.SingleDeckAdapter``; blackjack adds side bets, insurance and dealer odds.
"""
