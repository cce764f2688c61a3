"""The compiled path: pinocchio's tree recursions and numba's whole DOP853 step."""
