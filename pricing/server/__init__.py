"""The live service: tables kept in a journal (``store``), their states fanned out to watchers
(``fanout``), the two gRPC servicers, their interceptors, limits and metrics, and the process
that runs them (``main``)."""
