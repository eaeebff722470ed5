"""DO NOT EDIT. Part of the fencing-lab adapter (`fencing-lab lab init python` wrote it).

The starter's methods raise NotImplementedYet until you write them; the adapter reports such a
method to `fencing-lab check` as "not implemented yet" instead of as a failure. Any other
exception (NotImplementedError included) is reported as raised, which refuses.
"""


class NotImplementedYet(NotImplementedError):
    """Raised by a starter method that is still to be written."""

    def __init__(self, method):
        super().__init__("not implemented yet: " + method)
        self.method = method
