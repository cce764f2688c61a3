"""The numeric mechanics of one state: a model's system (M, W, the tree's terms), absolute coordinates, joint coordinates from poses, projection onto the constraints, momenta, posing."""
