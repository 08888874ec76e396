"""Dragon Tiger (docs/rules.md §8): one card to the Dragon, one to the Tiger, the higher rank
wins.

The package, by module (nothing is re-exported here, so importing one module loads no other):

* ``bets``: the twelve fixed-paytable bets, their paytables, the settlement of a dealt round
  and the exact odds of every bet from the cards left in the shoe.
"""
