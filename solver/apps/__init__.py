"""What capsa does with the engine and the strategies: batch, bench, duel, strength.

Library code: no printing; the CLI (``solver.cli``) is the only door to the terminal.
"""
