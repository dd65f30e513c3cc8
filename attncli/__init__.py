"""attncli: a command-line attention calculator that shows every step of the arithmetic."""

__version__ = "0.1.0"
