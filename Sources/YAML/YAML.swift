// YAML: work in progress on its own branch.
