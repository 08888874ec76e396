"""The live service: tables kept in a journal (``store``), their states fanned out to watchers
(``publisher``, ``fanout``), the two gRPC servicers (``dealer``, ``reads``, wired in
``service``), their interceptors, limits and metrics, and the process that runs them
(``process``: ``main``, ``serve``; its flags in ``flags``)."""
