"""The plots under the mechanism, their data, ranges, legends, marks, read-outs and the energy bars."""
