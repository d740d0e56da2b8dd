"""Step time of transformer training from the topology: the model's FLOPs and bytes, the
accelerators' peaks and bandwidths, the parallel layout, fitted on published measurements.

Pure Python on purpose: one prediction is arithmetic over a few dozen numbers, and a layout
search tries a few hundred of them; numpy would cost more to import than it saves.
"""
