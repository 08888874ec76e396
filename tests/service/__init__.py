"""Tests that start processes of their own: a real server (``server.py`` on free ports), the
``pricing`` commands, the quote workers, the examples, the Node.js example and buf."""
