"""The operators' read-only web console, served by the server process on its own address
(``--console-host``, ``--console-port``): the lobby and each table's state as JSON, and a
table's states as server-sent events fed by the same conflating fan-out as WatchTable.

``app`` builds the aiohttp application and starts and stops it in the server's own event loop;
``access`` checks reader tokens; ``views`` turns states into JSON once per version; ``sse``
streams a table's states.
"""

from __future__ import annotations

from pricing.server.console.app import Console, start_console

__all__ = ["Console", "start_console"]
