"""Tests that need a real ``nats-server`` (from the venv): the JetStream journal, replicas
sharing a stream, and the journal read back across releases."""
