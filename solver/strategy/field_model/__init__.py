"""The field model (per-row tables by row strength), the policies that set hands
with it (field, greedy), its training by self-play, and finding a ruleset's
tables (shipped, cached or trained now).
"""
