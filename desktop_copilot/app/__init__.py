"""Bootstrap: the QApplication with its qasync loop, and the command-line entry points."""
