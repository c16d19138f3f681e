"""``python -m harness.providers.llama_server ARGS``: ``python -m llama_cpp.server ARGS`` with the harness's
engine set-up (:mod:`harness.providers.engine_setup`).

``llama_cpp.server`` has no setting for llama.cpp's extra buffer types, so on a CPU with AMX an
unmodified server dies with SIGILL on its first request (issue 24). This entry point sets the OpenMP
wait policy before llama.cpp is loaded, then runs the server's own ``main`` with the buffer-type
choice applied to every model it loads; the arguments are the server's, unchanged.
"""

from __future__ import annotations

import sys


def main() -> None:
    from harness.providers.engine_setup import buffer_types, extra_bufts_choice, prepare_openmp

    prepare_openmp()
    extra, _ = extra_bufts_choice()
    sys.argv[0] = "python -m harness.providers.llama_server"
    from llama_cpp.server.__main__ import main as serve

    with buffer_types(extra):
        serve()


if __name__ == "__main__":
    main()
