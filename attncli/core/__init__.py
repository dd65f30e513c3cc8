"""Pure numpy functions: arrays in, arrays out; no I/O, no typer, no rich."""
