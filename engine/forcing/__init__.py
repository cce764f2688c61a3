"""Forces: applied forces as generalized forces, where applied and constraint forces act."""
