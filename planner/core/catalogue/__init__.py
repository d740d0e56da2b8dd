"""What AWS sells and its figures: instance and UltraServer types, Capacity Block rules of sale,
and the shipped data (planner/data/*.yaml) they are read from."""
