"""Command modules that register themselves on the ``pigdice`` typer app (imported at the end of cli.py)."""
