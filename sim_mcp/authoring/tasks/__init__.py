"""Tasks written by a model, each kept only when its own reference solution proves it (`taskgen`)."""
