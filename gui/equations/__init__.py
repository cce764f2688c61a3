"""The equations panel: derived and typeset in child processes, shown as pages."""
