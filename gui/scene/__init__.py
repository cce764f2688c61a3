"""The mechanism drawn: the 2-D scene, the 3-D view, shapes, markers, the camera and dragging; contact spheres, the
ground and the impulse arrows of impacts."""
