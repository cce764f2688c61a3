"""The plot of the tutorial "From a robot file to a plot": import the acrobot's URDF, run it, plot its joint
angles and its energy with pandas and matplotlib. Run from the top of the source tree:

    python docs/tutorials/acrobot_plot.py acrobot.png
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import eomlab  # noqa: E402
from eomlab.engine.robot_formats import import_model  # noqa: E402

model, warnings = import_model("docs/tutorials/acrobot.urdf")
frame = eomlab.simulate(model, t_end=6.0, dt_out=0.005).to_pandas()

figure, (angles, energy) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True, layout="constrained")
frame[["shoulder", "elbow"]].plot(ax=angles)
angles.set_ylabel("angle [rad]")
angles.set_title("the acrobot imported from its URDF: joint angles, and the energy it keeps")
frame[["T", "V", "E"]].plot(ax=energy)
energy.set_ylabel("energy [J]")
energy.set_xlabel("t [s]")
figure.savefig(sys.argv[1], dpi=110)
