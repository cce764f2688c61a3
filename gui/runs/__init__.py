"""The run side of the window, without widgets: the session, its worker threads and processes, pacing, the kept samples and the energy accounts."""
