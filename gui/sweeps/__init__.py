"""Run ▸ Sweep: the sweep panel and its exports."""
