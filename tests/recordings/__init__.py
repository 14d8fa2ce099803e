"""Our own recorded-format streams (see generate.py)."""
