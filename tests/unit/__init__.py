"""Tests that run in the test's own process: the games, the references, the tables, the
journal on a temporary file, the server's parts without a network. No server process, no
subprocess: ``make test-fast`` runs this tier (less its ``slow`` checks) and the doctests."""
