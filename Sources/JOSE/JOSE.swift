// JOSE: work in progress on its own branch.
