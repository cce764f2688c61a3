"""Drawing layers of the 2-D and 3-D views that are not the bodies themselves: contact spheres, the
ground and the impulse arrows of impacts (issue 28)."""
