"""The anonymous labels of stage-2 peer review: ``Response A`` .. ``Response Z``, one letter per candidate.

Shared vocabulary on the ground floor: the config's member limit and the council's ballots read it.
"""

from __future__ import annotations

import string

#: the label letters, in presentation order before shuffling
LABEL_LETTERS = string.ascii_uppercase
#: one label letter per candidate: at most this many answers can be anonymized in one review
MAX_CANDIDATES = len(LABEL_LETTERS)
