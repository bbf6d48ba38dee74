"""Remembered browsers: "Remember this browser for 30 days" under the second factor.

When the box is ticked, a sign-in that passed a second factor asks libmfa
for a device token (``resolver.remember_device``) and keeps it in a cookie
of its own: ``HttpOnly``, ``SameSite=Lax``, ``Secure`` and ``__Host-``
outside development, as long-lived as libmfa remembers the device. At the
next sign-in in that browser the password and the cookie's token sign the
user in without a second factor (``Context.sign_in(user, device_token=...)``);
a token libmfa no longer takes (revoked, expired, another browser's) is
ignored, the second factor is asked for, and the stale cookie is dropped.

Step-up (removing a factor) never takes the token: it always asks for a
real second factor. The account page (:mod:`mfa_web.account`) lists the
remembered browsers and forgets one or all
(``Context.revoke_remembered_devices``).
"""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

import flask
from werkzeug.wrappers import Response
import libmfa

from . import engine


def cookie_name() -> str:
    """The cookie's name (``__Host-`` outside development)."""
    return "mfa_device" if flask.current_app.config["MFA_WEB_DEVELOPMENT"] else "__Host-mfa_device"


def days() -> Optional[int]:
    """How many days a browser is remembered for, or None when libmfa's configuration does not allow it."""
    section = engine.context().config().get("rememberedDevices")
    if not isinstance(section, dict) or section.get("state") != "ENABLED":
        return None
    return int(section.get("days", 30))


def token() -> Optional[str]:
    """The device token this browser holds, or None."""
    value = flask.request.cookies.get(cookie_name(), "")
    _, _, text = value.partition(":")
    return text if 0 < len(text) <= 256 else None


def this_device() -> str:
    """The id of the device this browser was remembered as ("" if none)."""
    value = flask.request.cookies.get(cookie_name(), "")
    device_id, _, _ = value.partition(":")
    return device_id if len(device_id) <= 64 else ""


def label() -> str:
    """A name for this browser, from its User-Agent: "Chrome on Linux"."""
    agent = flask.request.headers.get("User-Agent", "")
    browser = next((name for pattern, name in (
        (r"Edg/", "Edge"), (r"Firefox/", "Firefox"), (r"Chrom(e|ium)/", "Chrome"), (r"Safari/", "Safari"))
        if re.search(pattern, agent)), "A browser")
    system = next((name for pattern, name in (
        (r"Android", "Android"), (r"iPhone|iPad", "iOS"), (r"Mac OS X", "macOS"), (r"Windows", "Windows"),
        (r"Linux", "Linux")) if re.search(pattern, agent)), "")
    return browser + (" on " + system if system else "")


def keep(response: Response, device: libmfa.DeviceToken) -> None:
    """Store a new device token in this browser, for as long as libmfa remembers the device."""
    response.set_cookie(cookie_name(), "%s:%s" % (device.device.id, device.token),
                        max_age=max(0, device.device.expires_at - engine.now()), path="/", httponly=True,
                        samesite="Lax", secure=not flask.current_app.config["MFA_WEB_DEVELOPMENT"])


def drop(response: Response) -> None:
    """Remove this browser's device cookie."""
    response.delete_cookie(cookie_name(), path="/", httponly=True, samesite="Lax",
                           secure=not flask.current_app.config["MFA_WEB_DEVELOPMENT"])


def listed() -> List[Tuple[libmfa.RememberedDevice, bool]]:
    """The signed-in user's remembered browsers, each with whether it is this one."""
    current = this_device()
    return [(device, device.id == current) for device in engine.context().remembered_devices(engine.require_account().uid)]
