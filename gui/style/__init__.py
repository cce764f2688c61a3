"""Shared looks: each formulation's colour and name, the plots' style, labels that hold their size. Imports nothing from the rest of the window."""
