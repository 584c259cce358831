// placeholder until server tests exist
