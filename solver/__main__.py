"""``python -m solver`` runs the capsa command line."""

from solver.cli import main

main()
