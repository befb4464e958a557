"""The Link header of a list answer."""
from __future__ import annotations

import re
from typing import Optional

_LINK = re.compile(r'<([^>]*)>\s*;([^,]*)')


def next_link(header: Optional[str]) -> Optional[str]:
    """The URL of the Link header's rel="next", or None on the last page."""
    for url, parameters in _LINK.findall(header or ""):
        if re.search(r'(?:^|;)\s*rel\s*=\s*"?next"?\s*(?:;|$)', parameters):
            return url
    return None
