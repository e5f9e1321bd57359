"""The main job that `make demo` runs on the shipped sample data."""
