"""The mechanism drawn: the 2-D scene, the 3-D view, shapes, markers, the camera and dragging."""
