"""Showing results: number format and language, rich renderables, output streams, exports,
plots and HTML for notebooks. Nothing below computes a number of the attention itself."""
