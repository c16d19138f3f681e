"""Root conftest: the harness plugin is loaded through its ``pytest11`` entry point once the
package is installed (``pip install -e .``); nothing else is needed here."""
