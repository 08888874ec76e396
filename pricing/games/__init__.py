"""The games' engines: exact odds and prices as pure functions of the cards seen, over
``pricing.cards``, ``pricing.payout`` and the compiled kernels. They know nothing of tables,
journals or gRPC."""
