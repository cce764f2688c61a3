"""What a run does over time: stepping, poses at instants, edits, parameter history, manipulation, start checks, the energy account, measured oscillations, quantities at samples."""
