"""The Bigtable emulator that ships in the wheel: Sparsetable's gRPC server.

Start one from Python on a free port, in memory or on a directory::

    from sparsetable.server import start
    with start() as server:                      # or start(data_dir="path/to/data")
        os.environ["BIGTABLE_EMULATOR_HOST"] = server.address
        ...                                      # Google's clients now talk to it

or from a shell, as Google's emulator is started: ``sparsetable-server --port 8086``
(``sparsetable-server --help`` lists the options). In pytest, the ``bigtable_emulator``
fixture of the plugin this package installs (:mod:`sparsetable.pytest_plugin`) does both.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Optional, Sequence, Union

from sparsetable._native import EmulatorServer

__all__ = ["EmulatorServer", "start", "main"]


def start(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    data_dir: Union[str, "os.PathLike[str]", None] = None,
    durability: Optional[str] = None,
    clock_micros: Optional[int] = None,
    log_level: str = "error",
    gc_mode: Optional[str] = None,
) -> EmulatorServer:
    """Starts a server on a thread of this process and returns once it listens.

    ``port=0`` picks a free port (read it back from ``.address`` / ``.port``). Without
    ``data_dir`` the data is in memory; with it, in ``DATA_DIR/PROJECT/INSTANCE`` with
    ``durability`` ``"sync"`` (default), ``"interval"`` or ``"none"``. ``clock_micros``
    freezes the server's clock. ``gc_mode`` is ``"immediate"`` (default: cells a GC rule
    makes collectable vanish from reads at once) or ``"background"`` (they stay readable
    until collected, as in Cloud Bigtable). Stop it with ``.stop()`` or a ``with`` block.
    """
    return EmulatorServer(
        host=host,
        port=port,
        data_dir=data_dir,
        durability=durability,
        clock_micros=clock_micros,
        log_level=log_level,
        gc_mode=gc_mode,
    )


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The ``sparsetable-server`` console script: the server's own command line."""
    args = list(sys.argv[1:] if argv is None else argv)
    # The server installs its own SIGINT/SIGTERM handlers (finish calls, flush, exit 0);
    # Python's would only turn Ctrl-C into a KeyboardInterrupt after the server is gone.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return EmulatorServer.serve_cli(args)


if __name__ == "__main__":
    sys.exit(main())
