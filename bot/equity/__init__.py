"""What positions are worth: game outcomes, the match equity table, cube arithmetic and resignations.

The bottom layer of ``bot``: it turns probabilities into equities and cube verdicts and
imports nothing of ``bot`` above it (tests/test_layers.py).
"""
