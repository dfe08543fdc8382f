"""Who sits across the table: opponent models (styles and learned files), learning
a model from seen settings, and the opponent pool (set hands kept in one file).
"""
