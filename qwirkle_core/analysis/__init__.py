"""Which move is best: an exact endgame solver (:mod:`.endgame`) and Monte Carlo
simulation (:mod:`.simulation`), with kernels in numba like the rest."""
