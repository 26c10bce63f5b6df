"""The work budget of one decision: counted units of analysis, never the clock, so that what a
command line is judged on does not depend on how loaded the machine is.

The parser has its own counted caps (``shell.MAX_COMMANDS`` simple commands, scanner matches and
characters per command). Judging what it found is counted here: each distinct simple command
costs ``COMMAND`` units plus ``WORD`` per word and redirection, each path matched against the
protected patterns or the control plane ``PATH``, each directory resolved ``DIRECTORY``, each glob
expanded on disk ``GLOB``. When the units run out, no further command is judged and the command
line is blocked as ``too-large``; what was found in the commands judged before is still named.
"""

from __future__ import annotations

#: units for judging one distinct simple command (every rule and spec it meets)
COMMAND = 20
#: and for each of its words and redirections
WORD = 2
#: and a unit per this many characters of its words (rules read them: a script given to ``bash -c``)
CHARS_PER_UNIT = 64
#: units for one path matched against the protected patterns or the control plane
PATH = 6
#: units for one path checked against the control plane the long way (plane.covering: realpaths)
DIRECTORY = 24
#: units for one component of a path looked at on disk (an lstat: paths.Resolver)
STEP = 2
#: units for one glob expanded on the file system
GLOB = 48
#: units one command line may spend on judging: with the parse (at most ``shell.MAX_COMMANDS``
#: simple commands), it keeps every decision under ~15 ms of CPU on the machine the guard README's
#: table was measured on; an ordinary command line spends a few hundred
BUDGET = 5000
#: units the parse of one command line may spend (shell.TOKENS_PER_UNIT, PARSE_COMMAND, CODE_CHARS_PER_UNIT)
PARSE_BUDGET = 7000


class OutOfWork(Exception):
    """The command line needed more analysis than the budget allows."""


class Work:
    """What one decision may still spend."""

    __slots__ = ("left", "spent_out")

    def __init__(self, units: int | None = None) -> None:
        self.left = BUDGET if units is None else units
        self.spent_out = False

    def spend(self, units: int) -> None:
        self.left -= units
        if self.left < 0:
            self.spent_out = True
            raise OutOfWork
