"""A hand's splits and the Pareto front of them, and the one dealer.
"""
