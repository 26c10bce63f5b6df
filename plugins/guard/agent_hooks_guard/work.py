"""The work budget of one decision: counted units of analysis, never the clock, so that what a
command line is judged on does not depend on how loaded the machine is.

The parser has its own counted caps (``shell.MAX_COMMANDS`` simple commands, scanner matches and
characters per command). Judging what it found is counted here: each distinct simple command
costs ``COMMAND`` units plus one per word and redirection, each path looked up against the
control plane ``PATH``. When the units run out, no further command is judged and the command
line is blocked as ``too-large``; what was found in the commands judged before is still named.
"""

from __future__ import annotations

#: units for judging one distinct simple command (every rule and spec it meets), plus one per word
COMMAND = 24
#: units for one path looked up against the control plane (the file system is asked: lstat, realpath)
PATH = 8
#: units one command line may spend on judging. A distinct command costs about a microsecond per
#: unit here, so this keeps the judging of any input under ~8 ms of CPU, the parse under ~7 ms;
#: an ordinary command line spends a few hundred
BUDGET = 8000


class OutOfWork(Exception):
    """The command line needed more analysis than the budget allows."""


class Work:
    """What one decision may still spend."""

    __slots__ = ("left", "spent_out")

    def __init__(self, units: int = BUDGET) -> None:
        self.left = units
        self.spent_out = False

    def spend(self, units: int) -> None:
        self.left -= units
        if self.left < 0:
            self.spent_out = True
            raise OutOfWork
