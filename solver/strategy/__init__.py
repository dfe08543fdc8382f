"""Setting hands, by concept (docs/architecture.md, "The strategy's packages"):

- ``hands``: a hand's splits and the Pareto front, and the one dealer;
- ``field_model``: the field model, the policies, training, a ruleset's tables;
- ``opposition``: opponent models, learning them, the opponent pool and its file;
- ``solving``: the scorers, the home run, the advice, the answer, ``solve()``;
- ``threads`` (kernels over threads, stoppable) and ``_kernels`` (the numba kernels
  every package calls through its wrappers).

The packages are floors (pyproject.toml's import contracts): solving > opposition >
field_model > hands > threads. Imports ``solver.engine`` and ``evaluator``, never
``solver.apps`` or the CLI.
"""
