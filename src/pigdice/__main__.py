"""``python -m pigdice``: the same command line as the ``pigdice`` script."""

from pigdice.cli import main

main()
