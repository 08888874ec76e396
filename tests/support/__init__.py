"""What the tests share, imported from here (the benchmarks in bench/ import it too): the
server process (``server``), the wire helpers, NATS, certificates, a cuttable proxy, the
journal contract, the hostile readers, the quote workers' tasks and the pure-Python
references (``reference``)."""

from pathlib import Path

#: The repository's root.
ROOT = Path(__file__).resolve().parents[2]
