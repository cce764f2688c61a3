"""The menus' commands: files, the run commands, recording, presentation mode, shortcuts, import."""
