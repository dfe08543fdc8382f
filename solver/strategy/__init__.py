"""Setting hands: splits and the Pareto front, the field tables, policies, training, solve().

Imports ``solver.engine`` and ``evaluator``, never ``solver.apps`` or the CLI.
"""
