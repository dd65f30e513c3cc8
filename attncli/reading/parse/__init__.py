"""Reading bytes and text: files, stdin, JSON, option text, tensor files, the installed samples
and a sentence's tokens, each turned into JSON-like values or float64 arrays with the place
of any fault."""
