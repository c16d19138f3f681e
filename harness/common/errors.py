"""User-facing errors: one paragraph naming the place and what was expected, never a traceback.

The exit codes of every ``council-harness`` command (documented in ``docs/cli.md``):

* :data:`EXIT_OK` 0: the command did what it was asked; for ``run``/``compare``/``diff``: the gate passed.
* :data:`EXIT_GATE` 1: the gate failed: a failing case or a regression (under the config's ``gate:`` rule).
* :data:`EXIT_USAGE` 2: a usage or configuration error: a bad option, config, dataset or path
  (:class:`ConfigError`, :class:`DatasetError`, :class:`StoreError`; argparse's own code).
* :data:`EXIT_INFRASTRUCTURE` 3: the harness could not reach a verdict: a replay-cache miss, an
  endpoint that failed after its retries (:class:`ProviderError`), a run whose every case errored, or
  results left incomplete (the gate's ``incomplete`` verdict, :data:`harness.gate.baselines.EXIT_INCOMPLETE`).
* 130: interrupted (Ctrl-C).
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_GATE = 1
EXIT_USAGE = 2
EXIT_INFRASTRUCTURE = 3


class HarnessError(Exception):
    """Base class for errors that are shown to the user as a single clear message.

    Args:
        message: what went wrong and what was expected.
        where: the file, ``file:line``, config key or field the problem is in (optional).
    """

    exit_code = EXIT_USAGE

    def __init__(self, message: str, where: str | None = None) -> None:
        self.message = message
        self.where = where
        super().__init__(self.__str__())

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class ConfigError(HarnessError):
    """Invalid configuration (YAML file, environment variable or option)."""


class DatasetError(HarnessError):
    """A golden dataset or suite file that cannot be loaded.

    ``problems`` lists every problem found in the file (the message names the first one and how
    many more there are); ``council-harness validate`` prints them all.
    """

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message, where)
        self.problems: list[DatasetError] = [self]

    @classmethod
    def of(cls, problems: list[DatasetError]) -> DatasetError:
        """One error standing for several: the first problem's message, with how many more follow."""
        first = problems[0]
        if len(problems) == 1:
            return first
        more = len(problems) - 1
        err = cls(
            f"{first.message} (and {more} more problem{'s' if more > 1 else ''}; "
            "`council-harness validate` lists them all)",
            first.where,
        )
        err.problems = list(problems)
        return err


class ProviderError(HarnessError):
    """A model call that failed after its retries (endpoint down, bad reply, timeout): an infrastructure error."""

    exit_code = EXIT_INFRASTRUCTURE


class CacheMiss(ProviderError):
    """In replay mode, a call that is not in the cache."""


class BudgetReached(Exception):  # noqa: N818 - named for what happened, like CacheMiss
    """A call refused because the run's ``token_limit`` / ``cost_limit`` was reached
    (:class:`harness.run.ledger.Budget`).

    Deliberately not a :class:`HarnessError`: the handlers that record a failed call as an error
    must not swallow it; it stops the (case, subject) pair, which is then not recorded (``--resume``
    runs it again).
    """


class StoreError(HarnessError):
    """A run, baseline or bias store that cannot be read or written."""
