"""Type aliases of the public API, for type checkers only (never imported at run time)."""

import datetime
from typing import Optional, Union

#: A secret: bytes or any bytes-like buffer (str is refused: decode base32 first).
Bytes = Union[bytes, bytearray, memoryview]
#: Text: str, or UTF-8 bytes.
Text = Union[str, bytes]
#: Text or None.
OptionalText = Optional[Union[str, bytes]]
#: A point in time: Unix seconds (int, or float rounded down) or a datetime.
UnixTime = Union[int, float, datetime.datetime]
