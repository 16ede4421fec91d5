"""``python -m pigdice``: the same command line as the ``pigdice`` script."""

from pigdice.cli.app import main

main()
