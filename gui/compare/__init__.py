"""Compare mode: several formulations of one model at one instant."""
