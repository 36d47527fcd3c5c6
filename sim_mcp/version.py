"""The package's version, in a module of its own so that any room can name it without importing the API."""

__version__ = "0.1.0"
