"""The game: rulesets, compiled rulesets, settlement and naturals, with their kernels.

The bottom layer of ``solver``: it imports ``evaluator`` and nothing else of ``solver``.
Importing this package does not import numba (the kernels load on first use).
"""
