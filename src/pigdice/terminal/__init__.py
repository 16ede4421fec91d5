"""The interactive terminal game behind ``pigdice play``."""
