"""Solving a hand: the scorers (Monte Carlo, exact, field), the home run and the
code card, the advice and a played setting's cost, given opponents, the
answer's schema, and solve() itself.
"""
