"""The ``pigdice`` command line's exit codes, named once for every command.

The terminal game (``pigdice.terminal.game``, a lower layer) returns the same numbers for an
interrupted and an endless game; a test checks the two agree.
"""

from __future__ import annotations

EXIT_FAILED = 1  # not the input's fault: a bug, out of memory, a part of ``prepare`` that failed, a record not verified
EXIT_BAD_INPUT = 2  # the input was refused: one ``error:`` line says why
EXIT_INTERRUPTED = 130  # stopped with Ctrl-C (128 + SIGINT, as shells report it)
